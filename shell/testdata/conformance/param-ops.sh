### bad substitution fails its line when it runs
echo before
echo ${a&}; echo same line
echo next $?
### length with another operator is a bad substitution
x=abc
echo ${#x-d}
echo ${#x:1}
echo after $?
### empty slice offset and length
x=abc; a=(1 2 3)
echo "[${x: }]" "[${x:1:}]" ${a[@]::} ${a[@]: -1}
echo ${x:}
echo after
### leading slash in a replacement pattern
x=/usr/local/bin
echo ${x////:} ${x///} ${x//'/'/-} ${x/#//+}
### quoted bracket in a bracket expression
p='^++--hello.,world<>[]'
echo ${p//[^'><+-.,[]']}
x='a]b'; echo ${x//["]"]/-}
### K, k and A transformations
x=x e=; a=(x 'y z')
echo ${x@K} ${e@K} ${u@K} ${x@A} ${e@A} ${u@A}
printf '[%s]' "${a[@]@K}" "${a[@]@k}"; echo
declare -r x; echo ${x@A}
### positional parameters have no attributes
set -- a b
printf '[%s]' "${@@a}" "${@@K}"; echo
### a list of empty elements for colon operators
a=('' ''); r='a[@]'
echo "[${a[@]:-w}][${a[*]:-w}][${!r:-w}]"
IFS=; echo "[${a[*]:-w}]"; printf '[%s]' ${a[*]:-w}; echo
### unset variable in a subshell under set -u
set -u
(echo $undef); echo "status $?"
### descriptor redirection of two words
set -- 2 3
echo hi 1>& "$@"; echo $?
### an error inside a function names the environment
f() {
  cd /nonexistent-dir
  echo ${b&}
}
f; echo "after f $?"
