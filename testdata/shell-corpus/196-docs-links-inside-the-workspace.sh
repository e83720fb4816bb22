# expect: read
# why: docs links inside the workspace
cat docs/a.go
