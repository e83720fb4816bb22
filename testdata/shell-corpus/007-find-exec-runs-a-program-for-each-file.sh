# expect: read+exec
# why: find -exec runs a program for each file
find . -exec sh -c 'id' \;
