# expect: write+outside
# why: a write outside the workspace
echo x > $OUT/x.txt
