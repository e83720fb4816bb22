# expect: read+exec+secret
# why: an exported LD_PRELOAD reaches the next step that reads a secret
export LD_PRELOAD=./evil.so
cat ~/.netrc
