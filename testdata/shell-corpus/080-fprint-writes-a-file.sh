# expect: read+write+outside
# why: -fprint writes a file
find . -fprint $OUT/list
