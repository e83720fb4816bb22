# expect: write+secret
# why: a redirection into ~/.ssh
echo key >> ~/.ssh/authorized_keys
