# expect: read+secret
# why: env ls of the home
env ls ~
