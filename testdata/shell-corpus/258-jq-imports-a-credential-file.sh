# expect: read+exec+secret
# why: import paths are searched in ~/.jq, whose parent holds .docker/config.json
jq -n 'import "../.docker/config" as $c; $c'
