# expect: read+exec
# why: an external diff driver is a program
git log --ext-diff
