# expect: read+exec
# why: --dirty hashes the work tree
git describe --dirty
