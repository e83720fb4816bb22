# expect: read+exec
# why: labels are outside the safe forms
sed ':a;N;ba' README.md
