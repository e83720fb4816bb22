# expect: read+write
# why: sed -i writes the file
sed -i 's/a/b/g' src/a.go
