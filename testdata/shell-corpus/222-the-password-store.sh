# expect: read+secret
# why: the password store
cat ~/.password-store/x.gpg
