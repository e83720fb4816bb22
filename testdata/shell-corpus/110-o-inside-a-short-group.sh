# expect: read+write
# why: -o inside a short group
sort -uo out.txt README.md
