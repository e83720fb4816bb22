# expect: read+write+secret
# why: copying a key out
cp keys/id_ed25519 src/
