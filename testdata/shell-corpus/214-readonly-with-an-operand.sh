# expect: exec
# why: readonly with an operand
readonly PATH
