# expect: write+secret
# why: builtin eval
builtin eval 'rm ~/.ssh/id_ed25519'
