# expect: read+exec+secret
# why: command substitution naming a key
cat $(echo ~/.ssh/id_ed25519)
