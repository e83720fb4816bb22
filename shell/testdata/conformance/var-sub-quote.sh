### default value
echo ${x:-def}
### default with single quotes in double quotes
echo "${Unset:-'b'}"
### default with double quotes
echo "${Unset:-"b c"}"
### default unquoted with single quotes
echo ${Unset:-'b  c'}
### assign default
echo ${y:=set}; echo $y
### alternate value
x=1; echo ${x:+alt} ${nope:+alt}
### error if unset
echo ${nope:?gone}; echo never
### error message default
echo ${nope?}
### length
x=hello; echo ${#x}
### prefix removal
x=a.b.c; echo ${x#*.} ${x##*.}
### suffix removal
x=a.b.c; echo ${x%.*} ${x%%.*}
### replacement
x=aaa; echo ${x/a/b} ${x//a/b}
### anchored replacement
x=abca; echo ${x/#a/X} ${x/%a/X}
### substring
x=abcdef; echo ${x:1:3} ${x:2} ${x: -2}
### upper and lower
x=Hello; echo ${x^^} ${x,,} ${x^}
### indirect
x=y; y=target; echo ${!x}
### at in a word
set -- a b c; for w in "-$@-"; do echo "[$w]"; done
### star in a word
set -- a b c; for w in "-$*-"; do echo "[$w]"; done
### at with IFS
set -- a b; IFS=:; echo "$*"
### at empty
set --; for w in "$@"; do echo x; done; echo "n=$#"
### at quoted parts
set -- "a b" c; printf '[%s]' "$@"; echo
### at unquoted splits
set -- "a b" c; printf '[%s]' $@; echo
### quoted pattern in removal
x='a*b'; echo "${x#'a*'}"
### pattern with variable
p=b; x=abc; echo ${x/$p/X}
### nested default
echo ${a:-${b:-inner}}
### default with space
echo "${u:-a b}"
### empty vs unset
x=; echo "[${x-unset}]" "[${x:-empty}]"
### array element
a=(x y z); echo ${a[1]} ${#a[@]}
### array all quoted
a=("p q" r); printf '[%s]' "${a[@]}"; echo
### array slice
a=(1 2 3 4); echo ${a[@]:1:2}
### keys
a=(x y); echo ${!a[@]}
### associative
declare -A m; m[k]=v; echo ${m[k]}
### bad substitution
#! differs: the message names the expansion as `${xy}` where bash writes it as written, `${x!y}` (the line stops with status 1 as in bash)
echo ${x!y}
### unset variable with nounset
set -u; echo $nope; echo never
### positional beyond nine
set -- 1 2 3 4 5 6 7 8 9 ten; echo ${10}
### special parameters
set -- a b; echo $# "$1"
### quoted star default
echo "${nope:-*}"
### replace with slash
x=a/b/c; echo ${x//\//-}
### length of array
a=(1 2 3); echo ${#a[*]}
