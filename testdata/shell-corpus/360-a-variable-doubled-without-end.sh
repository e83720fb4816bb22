# expect: exec
# why: a variable doubled in a loop grows until the interpreter's process runs out of memory
x=a; while :; do x=$x$x; done
