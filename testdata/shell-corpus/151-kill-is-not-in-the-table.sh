# expect: exec
# why: kill is not in the table
kill -9 1
