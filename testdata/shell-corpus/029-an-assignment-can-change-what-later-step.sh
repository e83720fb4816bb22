# expect: exec
# why: an assignment can change what later steps run
X=1
