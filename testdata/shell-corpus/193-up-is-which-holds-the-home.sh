# expect: read+secret
# why: up is .., which holds the home
ls up/
