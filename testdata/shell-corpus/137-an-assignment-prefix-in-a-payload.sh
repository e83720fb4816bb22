# expect: write+exec
# why: an assignment prefix in a payload
bash -c 'X=1 rm src/a.go'
