# expect: read+secret
# why: a quoted part after a tilde
cat ~/".ssh"/id_ed25519
