# expect: exec+secret
# why: nc -U speaks to the agent's socket like any client
nc -U "$SSH_AUTH_SOCK" </dev/null
