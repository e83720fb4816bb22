# expect: exec
# why: an interpreter runs anything
python3 -c 'print(1)'
