# expect: exec
# why: python dumps its whole environment
python3 -c 'import os; print(dict(os.environ))'
