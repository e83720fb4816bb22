# expect: read+write+exec
# why: rm of words read at run time
while read l; do rm "$l"; done < list.txt
