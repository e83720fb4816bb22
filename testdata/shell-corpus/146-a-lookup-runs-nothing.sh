# expect: none
# why: a lookup runs nothing
type rm
