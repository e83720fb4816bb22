# expect: exec
# why: PYTHONPATH and PYTHONSTARTUP make python load the workspace's code
PYTHONPATH=. PYTHONSTARTUP=./s.py python3 -c "print(1)"
