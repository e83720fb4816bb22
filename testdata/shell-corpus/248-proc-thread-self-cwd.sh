# expect: read+secret
# why: /proc/thread-self is the program's thread: the same cwd
cd ~/.ssh; cat < /proc/thread-self/cwd/id_ed25519
