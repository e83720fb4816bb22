# expect: read+write+exec
# why: -files0-from: the starting points come from a list that can change after the judgement
find -files0-from list.txt -delete
