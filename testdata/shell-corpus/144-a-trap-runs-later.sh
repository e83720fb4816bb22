# expect: write+secret
# why: a trap runs later
trap 'rm -rf ~/.ssh' EXIT
