# expect: read+write+protected
# why: -delete from the workspace root, which holds .git
find . -name '*.go' -delete
