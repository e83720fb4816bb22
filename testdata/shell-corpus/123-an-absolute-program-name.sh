# expect: exec
# why: an absolute program name
/bin/rm -rf src
