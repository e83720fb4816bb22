# expect: read+exec
# why: -ok runs a program
find src -ok cat {} \;
