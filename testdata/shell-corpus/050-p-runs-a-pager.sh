# expect: read+exec
# why: -p runs a pager
git -p log
