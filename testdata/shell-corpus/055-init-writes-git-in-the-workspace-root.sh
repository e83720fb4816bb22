# expect: read+write+protected
# why: init writes .git in the workspace root
git init
