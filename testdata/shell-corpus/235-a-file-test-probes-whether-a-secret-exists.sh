# expect: secret
# why: [[ -f ]] is no command, yet it tells whether a private key exists, as `test -f` does
[[ -f ~/.ssh/id_ed25519 ]] && echo found
