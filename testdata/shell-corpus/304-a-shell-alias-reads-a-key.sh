# expect: read+exec+secret
# why: a ! alias is a shell command: it reads a key
git -c alias.z='!cat ~/.ssh/id_ed25519' z
