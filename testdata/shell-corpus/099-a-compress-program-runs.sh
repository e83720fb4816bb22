# expect: read+exec
# why: a compress program runs
sort --compress-program=sh README.md
