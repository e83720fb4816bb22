### $_ is the last word of the last command
echo a b; echo "$_"; x=1; echo "[$_]"
### $_ is kept by (( )), [[ ]] and subshells
: one; (( 1 )); [[ a ]]; echo $_; : two; (echo $_); echo $_ | cat
### $_ after a pipeline's last stage and in a loop
echo init; for i in 1 2; do echo prev=$_; done
### $_ after declare
declare s=v; echo $_; declare a=(1 2); echo $_
### $_ is set under set -u
set -u; echo "[${_+set}]"
### LINENO in arithmetic
echo one
(( x = LINENO )); echo $x
### BASHPID differs in a subshell
[ $BASHPID = $$ ] && echo same; (a=$BASHPID; [ $a != $$ ] && echo differs)
### SECONDS OSTYPE and HOSTNAME are set
[ "$SECONDS" -ge 0 ] && echo "$OSTYPE" && [ "$HOSTNAME" = "$(hostname)" ] && echo host
