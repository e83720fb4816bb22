# expect: read+secret
# why: quotes do not hide a path
cat "keys"/"id_ed25519"
