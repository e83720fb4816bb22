# expect: write
# why: stdbuf runs its payload
stdbuf -oL rm src/a.go
