# expect: read+secret
# why: find in the home, which holds secrets
find ~ -name id_ed25519
