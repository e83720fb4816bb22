# expect: read+write+protected
# why: a copy into .git/hooks
cp src/a.go .git/hooks/post-commit
