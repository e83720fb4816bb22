# expect: exec
# why: the gate cannot see what python opens: the kernel keeps the home from it without outside
python3 -c 'import os; print(open(os.path.expanduser("~/.config/unnamed-vault/token")).read())'
