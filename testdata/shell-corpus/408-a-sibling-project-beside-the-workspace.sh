# expect: read+outside
# why: another directory of the home beside the workspace is held back like the rest
cat ../home/.config/unnamed-vault/token
