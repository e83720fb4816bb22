# expect: exec
# why: export with an operand
export PATH=./bin:$PATH
