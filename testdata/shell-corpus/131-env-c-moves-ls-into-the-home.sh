# expect: read+secret
# why: env -C moves ls into the home
env -C ~ ls
