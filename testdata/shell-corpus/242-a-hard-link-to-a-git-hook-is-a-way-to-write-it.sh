# expect: write+protected
# why: a hard link to .git/hooks/pre-commit is a workspace name for the hook's data; a write through it changes the hook
ln .git/hooks/pre-commit hook
