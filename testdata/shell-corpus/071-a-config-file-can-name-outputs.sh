# expect: read+exec+net
# why: a config file can name outputs, and a step beside it can rewrite it after the judgement
curl -K cfg https://example.com
