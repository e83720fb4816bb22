# expect: read+exec+secret
# why: the store helper run as a git subcommand prints the stored passwords
git credential-store get </dev/null
