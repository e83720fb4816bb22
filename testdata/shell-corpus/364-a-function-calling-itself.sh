# expect: exec
# why: a function calls itself without end: the interpreter's stack grows past its limit
f() { f; }; f
