# expect: net+exec
# why: talks to a remote
git fetch origin
