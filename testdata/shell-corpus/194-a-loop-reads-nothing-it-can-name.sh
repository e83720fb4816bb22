# expect: read
# why: a loop reads nothing it can name
cat loop1
