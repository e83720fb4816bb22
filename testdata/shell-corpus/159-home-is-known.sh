# expect: read+secret
# why: HOME is known
cat $HOME/.ssh/id_ed25519
