# expect: write+secret
# why: a directory in ~/.ssh
mkdir -p ~/.ssh/new
