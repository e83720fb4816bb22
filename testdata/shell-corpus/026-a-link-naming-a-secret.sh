# expect: write+secret
# why: a link naming a secret
ln -s ~/.ssh/id_ed25519 leak
