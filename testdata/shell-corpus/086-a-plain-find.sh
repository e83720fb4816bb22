# expect: read
# why: a plain find
find src -name '*.go'
