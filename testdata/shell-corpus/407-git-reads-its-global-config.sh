# expect: read+exec
# why: git's own configuration is a readable place: reading it, and everyday git that does, asks nothing
cat ~/.gitconfig && git status --short
