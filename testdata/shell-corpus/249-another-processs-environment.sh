# expect: read+secret
# why: another process's environment and arguments hold its tokens
cat /proc/1/environ; tr "\0" "\n" < /proc/1/cmdline
