# expect: none
# why: mapfile reads an endless stream into an array
mapfile a < <(yes)
