# expect: read
# why: a device read
head -c 100 /dev/urandom
