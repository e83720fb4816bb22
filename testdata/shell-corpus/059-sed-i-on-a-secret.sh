# expect: read+write+secret
# why: sed -i on a secret
sed -i 's/a/b/' ~/.ssh/authorized_keys
