# expect: exec+write+protected
# why: -c before config: the hooks path is still written
git -c color.ui=auto config core.hooksPath .hk
