# expect: read
# why: grep -r in the workspace
grep -r KEY
