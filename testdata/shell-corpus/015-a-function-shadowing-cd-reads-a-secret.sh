# expect: read+secret
# why: a function shadowing cd reads a secret
cd() { cat ~/.netrc; }
cd /tmp
