# expect: write
# why: nohup runs its payload
nohup rm src/a.go
