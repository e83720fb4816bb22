# expect: read+exec
# why: s///w writes a file sed names itself
sed 's/x/y/w out.txt' README.md
