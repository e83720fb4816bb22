# expect: read+secret
# why: ls of the home
ls ~
