# expect: read
# why: a safe sed script
sed -n '1,10p' src/a.go
