# expect: read+exec
# why: xargs cat
cat list.txt | xargs cat
