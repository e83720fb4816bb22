### (( closed by ) ) is a subshell in a subshell
((echo a) || (echo b))
### $(( closed by ) ) is a command substitution
echo $((echo a) )
### (( spanning lines closed by ) )
(( echo 1
echo 2
) )
### arithmetic with parentheses inside
(( x = (1 + 2) * 3 )); echo $x $(( (x + 1) * 2 ))
### $(( with a quoted parenthesis
x=$((echo ')'; echo b) | tr -d '\n'); echo $x
### a function body must be a compound command
f() echo hi
echo after
### a function body may be any compound command
f() if true; then echo if; fi
g() [[ -n x ]]
h() ( echo sub )
k() for i in 1 2; do echo $i; done
f; g && echo test; h; k
### a function body on the next line
f()
{
  echo next
}
f
### a declaration of an invalid name fails when it runs
export FOO-BAR=foo
echo status=$?
declare x-y+=3 ok=1 q-r
echo status=$? ok=$ok
### unset of a read-only variable
readonly r=1
unset r
echo status=$? r=$r
### shift's errors
set -- a b
shift 3
echo status=$? $#
shift -1
echo status=$?
shift x
echo status=$?
shift 1 2
echo never
### a for loop over an invalid name
for i.j in a b c; do
  echo hi
done
echo status=$?
### an error in a background command names the shell
echo a > nodir/f &
wait
echo status=$?
### a read-only assignment ends its line, the next line runs
readonly x=1
x=2; echo same line
echo next line
(x=3; echo in subshell); echo after subshell
