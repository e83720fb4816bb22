# expect: read+write+secret
# why: dd reads if= and writes of=
dd if=$HOME/.ssh/id_ed25519 of=key.txt
