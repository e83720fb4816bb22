### define and call
f() { echo called; }; f
### function keyword
function g { echo kw; }; g
### arguments
f() { echo "$1-$2"; }; f a b
### argument count
f() { echo $#; }; f a b c
### all arguments
f() { for a in "$@"; do echo "[$a]"; done; }; f "x y" z
### return status
f() { return 3; }; f; echo $?
### last status without return
f() { false; }; f; echo $?
### local variable
x=g; f() { local x=l; echo $x; }; f; echo $x
### global from function
f() { y=set; }; f; echo $y
### recursion
fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5
### positional parameters restored
set -- outer; f() { echo $1; }; f inner; echo $1
### function overrides command
echo() { builtin echo "wrapped $*"; }; echo hi
### command bypasses function
ls() { echo fake; }; command ls -d .
### unset a function
f() { echo f; }; unset -f f; f 2>/dev/null; echo $?
### FUNCNAME
f() { echo $FUNCNAME; }; f
### function with redirect
f() { echo redirected; } > out; f; cat out
### function in a subshell
f() { echo sub; }; (f)
### declare -f
f() { echo x; }; declare -F f
### nested function definition
outer() { inner() { echo inner; }; }; outer; inner
### local in nested call
f() { local v=f; g; }; g() { echo $v; }; f
### return without value keeps status
f() { false; return; }; f; echo $?
### function with pipes
up() { tr a-z A-Z; }; echo abc | up
### shift
f() { shift; echo "$@"; }; f a b c
### $0 in function
f() { echo "$0"; }; f
### function name with dash
my-func() { echo dash; }; my-func
### local -r
f() { local -r c=1; c=2; echo $c; }; f 2>/dev/null; echo $?
### return outside function
return 2>/dev/null; echo "st $?"
### type of a function
f() { :; }; type -t f
### missing command in function
f() { nosuchcmd; }; f; echo $?
