# expect: read+exec
# why: an assignment without a command
IFS=: ; cat x
