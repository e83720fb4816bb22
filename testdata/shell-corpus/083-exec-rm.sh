# expect: read+write+exec
# why: -exec rm
find src -exec rm {} \;
