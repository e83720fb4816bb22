# expect: write+protected
# why: making a hook executable
chmod +x .git/hooks/pre-commit
