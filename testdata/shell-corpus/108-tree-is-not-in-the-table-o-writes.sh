# expect: exec
# why: tree is not in the table (-o writes)
tree
