# expect: read+write+secret
# why: a write through a link into ~/.ssh
cat README.md > keys/stolen
