# expect: read
# why: reading .git is a read
cat .git/config
