# expect: read+write
# why: sort -o writes
sort -o sorted.txt README.md
