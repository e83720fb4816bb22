# expect: write
# why: env runs its payload: rm's effects
env rm -f src/a.go
