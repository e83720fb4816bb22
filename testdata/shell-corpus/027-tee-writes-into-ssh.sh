# expect: read+write+secret
# why: tee writes into ~/.ssh
tee ~/.ssh/authorized_keys < README.md
