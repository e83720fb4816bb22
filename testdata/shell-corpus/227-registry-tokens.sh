# expect: read+secret
# why: registry tokens
cat ~/.npmrc ~/.pypirc
