# expect: read+secret
# why: rg in ~/.ssh
rg -e x ~/.ssh
