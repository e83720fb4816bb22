# expect: read+write+secret
# why: --filter hands each piece to a shell command
split -l 1 --filter='cat ~/.ssh/id_ed25519' README.md
