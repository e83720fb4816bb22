# expect: read+secret
# why: docker credentials
jq . ~/.docker/config.json
