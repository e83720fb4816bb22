# expect: read+secret
# why: cd in a payload
sh -c 'cd ~/.ssh && ls'
