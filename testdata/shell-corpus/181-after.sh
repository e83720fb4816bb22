# expect: read+secret
# why: after --
cat -- ~/.netrc
