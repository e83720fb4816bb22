# expect: none
# why: a lookup runs nothing
command -v rm
