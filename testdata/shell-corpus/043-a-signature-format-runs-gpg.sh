# expect: read+exec
# why: a signature format runs gpg
git log --format='%G?'
