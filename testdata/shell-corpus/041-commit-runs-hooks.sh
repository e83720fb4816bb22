# expect: exec
# why: commit runs hooks
git commit -m msg
