# expect: exec
# why: make runs recipes
make
