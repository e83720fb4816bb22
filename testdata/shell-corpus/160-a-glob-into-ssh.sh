# expect: read+secret
# why: a glob into ~/.ssh
cat ~/.s*/id_ed25519
