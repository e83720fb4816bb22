# expect: write
# why: nice runs its payload
nice rm src/a.go
