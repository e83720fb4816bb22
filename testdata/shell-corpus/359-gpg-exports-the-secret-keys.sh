# expect: read+exec+secret
# why: gpg hands out the keys gpg-agent holds
gpg --batch --export-secret-keys --armor
