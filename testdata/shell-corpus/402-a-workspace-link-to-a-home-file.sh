# expect: read+write+outside
# why: a link made in the workspace is judged at its target, in the home
ln -s ~/.config/unnamed-vault/token tok; cat tok
