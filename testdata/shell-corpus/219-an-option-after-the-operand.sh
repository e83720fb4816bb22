# expect: read+write+outside
# why: an option after the operand
sort README.md -o $OUT/s
