# expect: read+exec
# why: a less command that runs a shell
less '+!id' README.md
