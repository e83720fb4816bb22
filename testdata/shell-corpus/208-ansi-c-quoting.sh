# expect: read+secret
# why: ANSI-C quoting
cat $'keys/id_ed25519'
