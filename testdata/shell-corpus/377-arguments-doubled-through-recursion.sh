# expect: exec
# why: a function passes itself its argument doubled: the value grows with each call
f() { f "$1$1"; }; f a
