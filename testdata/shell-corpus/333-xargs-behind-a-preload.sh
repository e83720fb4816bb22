# expect: read+exec
# why: xargs hands the preload to the reader it builds from its input
LD_PRELOAD=./evil.so xargs cat < list.txt
