# expect: read+exec
# why: an abbreviated --ext-diff
git log --ext
