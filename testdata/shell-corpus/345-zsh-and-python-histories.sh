# expect: read+secret
# why: every shell's and REPL's history is a record of what the user typed
tail -n 50 ~/.zsh_history ~/.python_history
