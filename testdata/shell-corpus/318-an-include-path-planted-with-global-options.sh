# expect: exec+write+protected
# why: an include.path behind global options pulls in a config file the step writes
git --work-tree=. --git-dir=.git -c core.pager=cat config --add include.path ../x
