# expect: read+secret
# why: gh tokens
cat ~/.config/gh/hosts.yml
