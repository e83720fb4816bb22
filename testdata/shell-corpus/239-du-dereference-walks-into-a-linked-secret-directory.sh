# expect: read+secret
# why: du -L -a names every file under keys/ -> ~/.ssh
du -L -a .
