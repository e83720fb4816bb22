# expect: read+write+outside
# why: --output writes a file
git log --output=$OUT/log.txt
