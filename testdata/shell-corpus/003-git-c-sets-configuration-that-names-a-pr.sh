# expect: read+exec
# why: git -c sets configuration that names a program
git -c core.pager='sh -c id' log
