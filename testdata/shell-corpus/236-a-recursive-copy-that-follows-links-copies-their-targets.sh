# expect: read+write+outside+secret
# why: cp -RL copies the workspace with keys/ -> ~/.ssh followed, so the private key lands in a plain directory
cp -RL . "$OUT/copy"
