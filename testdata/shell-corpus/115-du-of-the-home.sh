# expect: read+secret
# why: du of the home
du -sh ~
