# expect: read+exec
# why: --files0-from: the list can be a FIFO or change after the judgement
sort --files0-from=list.txt
