# expect: read
# why: cat /dev/stdin reads the program's own input
echo hi | cat /dev/stdin
