# expect: read+net+secret
# why: a file:// URL is a read of that file
curl -s file://$HOME/.ssh/id_ed25519
