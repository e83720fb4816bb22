# expect: write+exec+secret
# why: an alias hides a command: its definition is classified
alias ll='rm -rf ~/.ssh'
ll
