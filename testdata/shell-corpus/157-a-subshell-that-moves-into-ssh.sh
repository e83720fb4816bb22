# expect: read+secret
# why: a subshell that moves into ~/.ssh
(cd ~/.ssh; cat id_ed25519)
