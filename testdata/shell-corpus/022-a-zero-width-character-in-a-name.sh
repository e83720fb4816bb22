# expect: write
# why: a zero-width character in a name
rm $'src/\u200ba.go'
