# expect: read+write
# why: branch with a name changes refs
git branch feature
