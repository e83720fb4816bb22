# expect: read+secret
# why: ls reads its working directory, which is a secret
cd ~/.ssh && ls
