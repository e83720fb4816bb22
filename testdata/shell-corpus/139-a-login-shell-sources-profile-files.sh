# expect: read+exec
# why: a login shell sources profile files
bash -lc ls
