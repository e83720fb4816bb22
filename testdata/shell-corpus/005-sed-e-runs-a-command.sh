# expect: read+exec
# why: sed e runs a command
sed 'e id' README.md
