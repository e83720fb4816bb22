# expect: read+secret
# why: /dev/fd is /proc/self/fd: its parent's cwd is the program's
cd ~/.ssh; cat /dev/fd/../cwd/id_ed25519
