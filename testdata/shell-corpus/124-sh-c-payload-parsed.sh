# expect: write+secret
# why: sh -c payload parsed
sh -c 'rm -rf ~/.ssh'
