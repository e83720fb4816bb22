# expect: write+exec+secret
# why: a here-string of commands run by bash
bash <<< 'rm -rf ~/.aws'
