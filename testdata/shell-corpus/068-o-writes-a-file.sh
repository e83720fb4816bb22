# expect: read+write+net
# why: -o writes a file
curl -o page.html https://example.com
