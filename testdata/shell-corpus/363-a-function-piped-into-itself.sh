# expect: exec
# why: a function pipes into itself: goroutines and pipes double at every level
f() { f | f; }; f
