# expect: read+secret
# why: git credentials
cat ~/.git-credentials
