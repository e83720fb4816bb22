# expect: read+secret
# why: git's store helper keeps passwords in ~/.config/git/credentials when that file exists
cat ~/.config/git/credentials
