# expect: read
# why: a numbered flag is safe
sed -E 's/(a|b)+/x/2' README.md
