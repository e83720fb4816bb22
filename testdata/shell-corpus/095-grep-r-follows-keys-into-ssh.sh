# expect: read+secret
# why: grep -R follows keys into ~/.ssh
grep -R KEY .
