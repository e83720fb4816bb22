# expect: read+write
# why: -delete writes
find src -name '*.go' -delete
