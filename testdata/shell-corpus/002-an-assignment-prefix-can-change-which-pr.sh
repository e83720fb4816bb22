# expect: read+exec
# why: an assignment prefix can change which program runs
PATH=./bin cat README.md
