### readonly behind a temporary binding
FOO=foo readonly v=1; echo "[$FOO] $v"
### export through an alias
shopt -s expand_aliases; alias e=export
e x=1; sh -c 'echo "[$x]"'
### export through a variable splits its words
e=export; w='a b'; $e x=$w; sh -c 'echo "[$x]"'
### local behind a temporary binding
f() { tmp= local tx=tx; echo "[$tx]"; }; f
### declare -p of each kind
declare u; declare -a a=(1 ''); s='q"$`\'; t=$'a\tb'; declare -ir i=3; export e=1; declare -p u a s t i e
### declare -A on an existing associative array keeps it
declare -A m=([k]=v); declare -A m; echo "${m[k]}"; declare -p m
### declare -F lists functions
f() { :; }; g() { :; }; declare -F; declare -F g nosuch; echo $?
### declare -i evaluates and adds
declare -i n=2*3; n+=4; echo $n; n=n/2; echo $n
### declare -u and -l on later assignments
declare -u up; up=abc; declare -l lo; read lo <<< XYZ; echo $up $lo
### local hides a global until assigned
x=g; f() { local x; echo "[${x-unset}]"; x=l; echo "[$x]"; }; f; echo "[$x]"
### unset in a function
x=g; f() { unset x; echo "[${x-unset}]"; }; f; echo "[${x-unset}]"
### printf %q round-trips through eval
v=$(printf '%q' "a b'c\$d"); eval "echo $v"
### printf -v assigns each run of the format
printf -v list '%s,' a b c; echo "$list"
### read -n and -N
printf 'abcdef\ngh' | { read -n 2 a; read -N 5 b; echo "[$a][$b]"; }
### read -d
printf 'x;y;z' | { read -d ';' a; read -d '' b; echo "[$a][$b] $?"; }
### set -o noclobber
set -o noclobber; echo a > f; echo b > f 2>/dev/null || echo kept; set +o noclobber; echo c > f; cat f
### umask prints the mask
umask; umask -S; umask -p
### failglob drops the rest of the line
shopt -s failglob; echo nomatch*; echo same line
echo next line $?
