# expect: read+secret
# why: process substitution runs its commands
diff <(cat src/a.go) <(cat ~/.ssh/id_ed25519)
