# expect: exec
# why: a command substitution captures a program's endless output
: "$(yes)"
