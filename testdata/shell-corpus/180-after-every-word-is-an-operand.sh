# expect: write
# why: after -- every word is an operand
rm -- -rf
