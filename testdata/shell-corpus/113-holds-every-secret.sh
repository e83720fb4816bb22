# expect: read+secret
# why: / holds every secret
ls /
