# expect: read+write+net+secret
# why: -e input=FILE is the wgetrc command of -i FILE
wget --no-netrc -e input=$HOME/.ssh/id_ed25519 -O - https://example.com
