# expect: read+secret
# why: grep -r in the home
grep -r KEY ~
