# expect: read
# why: a program reads its own /proc/self/environ
cat /proc/self/environ | tr '\0' '\n'
