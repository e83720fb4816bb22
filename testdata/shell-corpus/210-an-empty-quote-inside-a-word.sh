# expect: read+secret
# why: an empty quote inside a word
cat k""eys/id_ed25519
