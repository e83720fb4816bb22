# expect: read+write+outside
# why: copying a home file into the workspace reads it first
cp ~/.config/unnamed-vault/token copied && cat copied
