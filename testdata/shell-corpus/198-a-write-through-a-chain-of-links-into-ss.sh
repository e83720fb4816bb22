# expect: write+secret
# why: a write through a chain of links into ~/.ssh
echo hi > chain1
