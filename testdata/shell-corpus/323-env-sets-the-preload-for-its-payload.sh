# expect: read+exec+secret
# why: env NAME=value hands the payload a library to load
env LD_PRELOAD=./evil.so cat ~/.netrc
