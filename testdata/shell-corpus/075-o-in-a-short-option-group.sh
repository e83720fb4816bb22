# expect: read+write+net+outside
# why: -o in a short-option group
curl -sSLo $OUT/x https://example.com
