# expect: read+net+secret
# why: --netrc reads ~/.netrc
curl --netrc https://example.com
