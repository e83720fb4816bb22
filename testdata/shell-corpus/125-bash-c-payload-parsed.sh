# expect: read+secret
# why: bash -c payload parsed
bash -c "cat ~/.netrc"
