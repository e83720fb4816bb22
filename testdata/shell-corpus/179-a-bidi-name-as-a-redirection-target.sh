# expect: write
# why: a bidi name as a redirection target
printf x > $'\u202e.txt'
