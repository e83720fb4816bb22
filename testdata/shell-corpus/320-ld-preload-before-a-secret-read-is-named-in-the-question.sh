# expect: read+exec+secret
# why: LD_PRELOAD before a secret read: the question must name the library the reader loads
LD_PRELOAD=./evil.so cat ~/.netrc
