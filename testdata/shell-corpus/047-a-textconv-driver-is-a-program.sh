# expect: read+exec
# why: a textconv driver is a program
git show --textconv HEAD
