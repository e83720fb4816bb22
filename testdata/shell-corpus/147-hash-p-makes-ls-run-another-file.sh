# expect: exec
# why: hash -p makes ls run another file
hash -p /tmp/evil ls
