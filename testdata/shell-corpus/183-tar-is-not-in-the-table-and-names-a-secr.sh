# expect: exec+secret
# why: tar is not in the table and names a secret
tar czf $OUT/x.tgz ~/.ssh
