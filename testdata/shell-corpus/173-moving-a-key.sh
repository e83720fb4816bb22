# expect: write+secret
# why: moving a key
mv ~/.ssh/id_ed25519 src/
