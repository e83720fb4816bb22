# expect: read+net
# why: bash's /dev/tcp is a connection, not a file outside the workspace: net alone, unasked when net is in the auto set
cat /etc/hostname > /dev/tcp/127.0.0.1/9
