# expect: write+protected
# why: a hook replaced by a link
ln -sf /tmp/x .git/hooks/pre-commit
