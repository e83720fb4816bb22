# expect: read
# why: a read subcommand
git log -p -n 3
