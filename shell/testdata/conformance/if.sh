### true branch
if true; then echo yes; fi
### else
if false; then echo yes; else echo no; fi
### elif
if false; then echo 1; elif true; then echo 2; else echo 3; fi
### status with no branch taken
if false; then :; fi; echo $?
### status of the branch
if true; then false; fi; echo $?
### test string equality
if [ a = a ]; then echo eq; fi
### test not equal
[ a != b ] && echo ne
### test numbers
[ 3 -gt 2 ] && echo gt
### test -z and -n
[ -z "" ] && [ -n x ] && echo zn
### test a file
touch f; [ -f f ] && echo file; [ -d f ] || echo notdir
### double brackets pattern
[[ abc == a* ]] && echo glob
### double brackets regex
[[ abc =~ ^a(b)c$ ]] && echo "${BASH_REMATCH[1]}"
### double brackets and or
[[ 1 -eq 1 && ( 2 -eq 3 || 4 -eq 4 ) ]] && echo logic
### double brackets string compare
[[ b > a ]] && echo greater
### unquoted empty in [
x=; [ -z $x ] && echo empty
### test with too many args
[ a b c ]; echo $?
### integer expected
[ a -eq 1 ]; echo $?
### arithmetic condition
if (( 2 > 1 )); then echo arith; fi
### negation
if ! false; then echo negated; fi
### and-or chain
true && echo a || echo b
### or-and chain
false && echo a || echo b
### nested if
if true; then if false; then echo x; else echo nested; fi; fi
### if on a command status
if grep -q x <<< "x"; then echo grep; fi
### test -e of missing
[ -e nothing ] || echo missing
### test -nt
touch -d '2000-01-01' old; touch new; [ new -nt old ] && echo newer
### test with parentheses
[ \( a = a \) -a \( b = b \) ] && echo both
### double brackets no split
x="a b"; [[ $x == "a b" ]] && echo nosplit
### test -v
x=1; [[ -v x ]] && echo set; [[ -v nope ]] || echo unset
### if with pipeline condition
if echo x | grep -q x; then echo piped; fi
### test missing bracket
[ a = a; echo $?
