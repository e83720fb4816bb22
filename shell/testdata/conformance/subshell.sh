### variables do not leak
x=1; (x=2); echo $x
### cd does not leak
mkdir d; (cd d; pwd | sed 's|.*/||'); pwd | sed 's|.*/||'
### exit status
(exit 3); echo $?
### exit ends only the subshell
(exit 1; echo no); echo yes
### nested subshells
( ( echo deep ) )
### functions do not leak
(f() { echo f; }); f 2>/dev/null; echo $?
### set options do not leak
(set -e); false; echo went on
### output of a subshell
( echo a; echo b ) | wc -l
### subshell sees outer variables
x=outer; (echo $x)
### export inside
(export Y=1); echo "[${Y-}]"
### subshell in a condition
if (true); then echo ok; fi
### subshell with and-or
(false) || echo recovered
### brace group shares variables
x=1; { x=2; }; echo $x
### brace group status
{ false; }; echo $?
### brace group with exit
{ echo a; }; echo b
### trap in subshell
(trap 'echo bye' EXIT; echo hi)
### umask in subshell
(umask 077; umask); umask
### BASH_SUBSHELL
echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL)
### subshell arithmetic
(( 1 + 1 == 2 )) && echo two
### subshell with redirect
(echo inner) > f; cat f
### subshell of many commands
(a=1; b=2; echo $((a+b)))
### background and wait
(echo bg) & wait; echo done
### wait status
(exit 7) & wait $!; echo $?
### subshell in a pipeline keeps order
(echo 1; echo 2) | tac
