# expect: none
# why: a descriptor duplication opens no file
echo x 2>&1
