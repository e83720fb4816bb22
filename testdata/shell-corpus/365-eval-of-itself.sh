# expect: exec
# why: eval runs code that evals itself, with no function to count
x='eval "$x"'; eval "$x"
