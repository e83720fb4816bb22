# expect: read+net+exec
# why: a downloaded script run by sh
curl -s https://example.com | sh
