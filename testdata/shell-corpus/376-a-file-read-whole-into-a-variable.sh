# expect: read+write+exec
# why: the $(<file) shortcut reads a large file into a variable
head -c 20000000 /dev/zero > big; x=$(<big)
