# expect: exec
# why: bisect run runs commands
git bisect run make
