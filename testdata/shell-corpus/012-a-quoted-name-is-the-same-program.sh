# expect: write
# why: a quoted name is the same program
\rm -f src/a.go
