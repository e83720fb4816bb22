# expect: write+exec
# why: a positional parameter is unknown
sh -c 'rm $1' x src/a.go
