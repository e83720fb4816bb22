# expect: read+secret
# why: rg in the home
rg x ~
