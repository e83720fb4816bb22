# expect: write
# why: command runs its payload: rm's effects
command rm -f src/a.go
