# expect: read+secret
# why: ssh-add talks to the agent named by SSH_AUTH_SOCK without naming it
ssh-add -L
