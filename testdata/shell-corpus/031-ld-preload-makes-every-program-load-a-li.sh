# expect: read+exec
# why: LD_PRELOAD makes every program load a library
export LD_PRELOAD=./x.so; cat README.md
