# expect: read+exec
# why: env with an assignment
env -i PATH=/tmp/evil ls
