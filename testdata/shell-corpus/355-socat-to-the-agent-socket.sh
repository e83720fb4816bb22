# expect: exec+net+secret
# why: socat connects straight to the ssh agent's socket
socat - UNIX-CONNECT:"$SSH_AUTH_SOCK"
