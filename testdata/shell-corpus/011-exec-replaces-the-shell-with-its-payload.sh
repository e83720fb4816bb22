# expect: write
# why: exec replaces the shell with its payload
exec rm -f src/a.go
