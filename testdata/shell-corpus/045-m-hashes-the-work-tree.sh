# expect: read+exec
# why: -m hashes the work tree
git ls-files -m
