# expect: read+write+secret
# why: xxd -r into ~/.ssh
xxd -r dump.hex ~/.ssh/authorized_keys
