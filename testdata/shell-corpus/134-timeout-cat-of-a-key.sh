# expect: read+secret
# why: timeout cat of a key
timeout 5 cat ~/.ssh/id_ed25519
