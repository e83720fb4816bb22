# expect: read+write+secret
# why: copying ~/.ssh
cp -r ~/.ssh backup
