# expect: read+secret
# why: a here-string of a secret
cat <<< "$(cat ~/.netrc)"
