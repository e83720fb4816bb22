# expect: read+secret
# why: eval of a known string
eval 'cat ~/.netrc'
