# expect: read+exec
# why: s///e runs the pattern space
sed -e 's/a/b/e' README.md
