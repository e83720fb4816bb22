# expect: read+secret
# why: rg -L follows keys into ~/.ssh
rg -L KEY
