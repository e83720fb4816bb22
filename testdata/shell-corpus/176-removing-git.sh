# expect: write+protected
# why: removing .git
rm -rf .git
