# expect: read+secret
# why: a branch counts
if true; then cat ~/.ssh/id_ed25519; fi
