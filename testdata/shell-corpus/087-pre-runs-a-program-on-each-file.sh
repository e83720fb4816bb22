# expect: read+exec
# why: --pre runs a program on each file
rg --pre cat x
