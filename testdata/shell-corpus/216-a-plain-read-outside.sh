# expect: read
# why: a plain read outside
cat /etc/hostname
