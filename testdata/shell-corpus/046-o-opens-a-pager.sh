# expect: read+exec
# why: -O opens a pager
git grep -O x
