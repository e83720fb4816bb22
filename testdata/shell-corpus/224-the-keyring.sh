# expect: read+secret
# why: the keyring
cat ~/.local/share/keyrings/login.keyring
