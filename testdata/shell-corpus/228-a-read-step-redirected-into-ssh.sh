# expect: read+write+secret
# why: a read step redirected into ~/.ssh
git log > ~/.ssh/log
