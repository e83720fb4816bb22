# expect: read+write+protected
# why: branch -u writes the upstream into the config
git branch -u origin/main
