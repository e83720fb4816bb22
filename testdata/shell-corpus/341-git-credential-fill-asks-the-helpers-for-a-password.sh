# expect: read+exec+secret
# why: git credential fill prints the password its helpers keep for a host
printf 'protocol=https\nhost=example.com\n\n' | git credential fill
