# expect: write+protected
# why: the workspace root holds .git
rm -rf .
