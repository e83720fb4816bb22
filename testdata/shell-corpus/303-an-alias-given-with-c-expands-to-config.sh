# expect: exec+write+protected
# why: an alias given with -c is the config write it expands to
git -c alias.z='config core.fsmonitor ./fsm' z
