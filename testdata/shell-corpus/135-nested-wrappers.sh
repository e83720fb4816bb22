# expect: read+secret
# why: nested wrappers
nice -n 10 sh -c 'cat ~/.netrc'
