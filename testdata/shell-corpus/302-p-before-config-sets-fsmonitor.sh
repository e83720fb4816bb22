# expect: exec+write+protected
# why: -p before config: fsmonitor is still written
git -p config core.fsmonitor ./fsm
