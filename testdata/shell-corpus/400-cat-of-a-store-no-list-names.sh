# expect: read+outside
# why: the home outside the workspace is held back by default: a store no list names is outside, not a plain read
cat ~/.config/unnamed-vault/token
