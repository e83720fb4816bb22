# expect: read+write+protected
# why: a new .git
git init newrepo
