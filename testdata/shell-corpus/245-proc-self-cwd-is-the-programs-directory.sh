# expect: read+secret
# why: /proc/self is the program's own process: its cwd is ~/.ssh, not tandem's
cd ~/.ssh; cat /proc/self/cwd/id_ed25519
