# expect: exec+write+protected
# why: a ! alias whose shell command is a git config write
git -c alias.st='!git config core.fsmonitor ./fsm' st
