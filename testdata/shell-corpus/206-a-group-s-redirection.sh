# expect: write
# why: a group's redirection
{ echo a; echo b; } > out.txt
