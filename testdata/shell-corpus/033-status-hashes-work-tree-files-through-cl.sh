# expect: exec
# why: status hashes work-tree files through clean filters
git status
