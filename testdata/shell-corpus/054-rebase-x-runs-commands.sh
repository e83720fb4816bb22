# expect: exec
# why: rebase -x runs commands
git rebase -x 'make test' main
