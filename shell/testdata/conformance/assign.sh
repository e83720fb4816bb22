### simple
x=1; echo $x
### spaces in value
x="a b"; echo "$x"
### no split on assignment
y="a   b"; x=$y; echo "$x"
### prefix assignment for a command
X=1 sh -c 'echo $X'; echo "[${X-}]"
### prefix assignment for a builtin
x=1; x=2 true; echo $x
### prefix assignment for a function
f() { echo "in $v"; }; v=tmp f; echo "[${v-}]"
### append
x=a; x+=b; echo $x
### append array
a=(1); a+=(2 3); echo ${a[@]}
### arithmetic assignment
declare -i n=2; n+=3; echo $n
### readonly
readonly r=1; r=2; echo $?
### export
export E=exported; sh -c 'echo $E'
### unset
x=1; unset x; echo "[${x-gone}]"
### declare
declare x=decl; echo $x
### declare -p
x=1; declare -p x
### tilde in assignment
x=~/dir; echo $x | sed "s|$HOME|H|"
### multiple on one line
a=1 b=2; echo $a$b
### assignment with command substitution
x=$(echo sub); echo $x
### array literal
a=(one two three); echo ${a[2]}
### array element assign
a[3]=x; echo ${#a[@]} ${a[3]}
### associative assign
declare -A m=([k]=v); echo ${m[k]}
### local outside function
local x=1; echo $?
### name with digits
v1=one; echo $v1
### invalid name
1x=2; echo $?
### assignment status from substitution
x=$(exit 2); echo $?
### export -n
export Q=1; export -n Q; sh -c 'echo "[$Q]"'
### let
let x=2+3; echo $x
### read into variable
read v <<< "val"; echo $v
### printf -v
printf -v out '%03d' 7; echo $out
### assign glob literal
x=*; echo "$x"
### declare -u
declare -u up=abc; echo $up
### declare -l
declare -l lo=ABC; echo $lo
### unset array element
a=(1 2 3); unset 'a[1]'; echo ${a[@]}
