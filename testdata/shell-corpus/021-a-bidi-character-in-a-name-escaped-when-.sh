# expect: read
# why: a bidi character in a name: escaped when shown, a plain read
cat $'src/a\u202e.go'
