# expect: read+exec+secret
# why: -L names a module directory jq reads
jq -n -L ~/.ssh 'include "id_ed25519"; .'
