# expect: exec
# why: tree -o writes
tree -o out.txt
