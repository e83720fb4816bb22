# expect: write+outside
# why: exec with only a redirection
exec > $OUT/log
