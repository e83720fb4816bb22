# expect: write+exec
# why: xargs rm with words from a file
xargs -a list.txt rm
