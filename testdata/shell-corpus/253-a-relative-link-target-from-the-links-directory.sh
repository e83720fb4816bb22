# expect: write+secret
# why: a relative symlink target is taken from the link's directory: src/../../home/.ssh
ln -s ../../home/.ssh/id_ed25519 src/k
