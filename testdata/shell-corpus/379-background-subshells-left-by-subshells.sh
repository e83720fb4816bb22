# expect: none
# why: each subshell leaves a background command behind: they pile up though every subshell ends
while :; do (sleep 5 &); done
