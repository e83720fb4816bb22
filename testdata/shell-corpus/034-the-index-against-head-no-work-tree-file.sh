# expect: read
# why: the index against HEAD: no work-tree file
git diff --cached
