# expect: read+secret
# why: gnupg keys
cat ~/.gnupg/private-keys-v1.d/k
