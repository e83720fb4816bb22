# expect: read+write+outside
# why: uniq's output outside
uniq README.md $OUT/u.txt
