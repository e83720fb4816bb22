# expect: read+net
# why: curl talks to the network
curl https://example.com
