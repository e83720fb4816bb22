# expect: read
# why: blocks of safe commands
sed -n '/x/{p;q}' README.md
