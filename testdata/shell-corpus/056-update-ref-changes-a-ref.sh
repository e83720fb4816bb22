# expect: read+write
# why: update-ref changes a ref
git update-ref refs/heads/x HEAD
