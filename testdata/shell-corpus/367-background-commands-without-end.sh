# expect: none
# why: background commands started in a loop: a goroutine each, without end
while :; do sleep 5 & done
