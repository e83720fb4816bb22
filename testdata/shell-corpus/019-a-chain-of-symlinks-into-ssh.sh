# expect: read+secret
# why: a chain of symlinks into ~/.ssh
cat chain1
