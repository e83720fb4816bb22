# expect: read+write+secret
# why: tee -a into ~/.ssh
cat README.md | tee -a ~/.ssh/authorized_keys
