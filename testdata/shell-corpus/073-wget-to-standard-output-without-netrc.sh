# expect: read+write+net
# why: wget to standard output without .netrc
wget --no-netrc -O - https://example.com/x
