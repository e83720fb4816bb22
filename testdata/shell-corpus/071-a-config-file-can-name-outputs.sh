# expect: read+write+exec+net
# why: a config file can name outputs
curl -K cfg https://example.com
