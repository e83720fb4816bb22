# expect: exec
# why: a long loop of builtins would be recorded step by step
i=0; while [ "$i" -lt 30000 ]; do i=$((i+1)); done; echo "$i"
