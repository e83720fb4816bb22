# expect: exec
# why: an array appended to in a loop, a copy each time
x=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; while :; do a+=("$x$x$x$x"); done
