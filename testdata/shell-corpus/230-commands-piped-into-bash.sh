# expect: read+exec+secret
# why: commands piped into bash
echo 'cat ~/.netrc' | bash
