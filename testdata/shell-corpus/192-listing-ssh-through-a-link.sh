# expect: read+secret
# why: listing ~/.ssh through a link
ls -la keys/
