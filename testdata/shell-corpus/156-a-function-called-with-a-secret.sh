# expect: read+exec+secret
# why: a function called with a secret
f() { cat "$1"; }
f ~/.netrc
