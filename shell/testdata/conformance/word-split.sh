### default IFS
x="a b  c"; set -- $x; echo $#
### tabs and newlines
x=$'a\tb\nc'; set -- $x; echo $#
### custom IFS
IFS=:; x="a:b:c"; set -- $x; echo $#
### empty fields kept with non-space IFS
IFS=:; x="a::b"; set -- $x; echo $#
### leading separator
IFS=:; x=":a"; set -- $x; echo $# "[$1]"
### trailing separator
IFS=:; x="a:"; set -- $x; echo $#
### whitespace plus delimiter
IFS=' :'; x="a : b"; set -- $x; echo $#
### empty IFS no split
IFS=; x="a b"; set -- $x; echo $#
### unset IFS
unset IFS; x="a b"; set -- $x; echo $#
### quoted no split
x="a b"; set -- "$x"; echo $#
### empty variable vanishes
x=; set -- $x; echo $#
### quoted empty stays
x=; set -- "$x"; echo $#
### read splits
read a b <<< "1 2 3"; echo "[$a][$b]"
### read with IFS
IFS=, read a b <<< "x,y"; echo "$a $b"
### read keeps leading with empty IFS
IFS= read l <<< "  padded"; echo "[$l]"
### command substitution split
set -- $(printf 'a\nb c'); echo $#
### split and glob
touch g1 g2; x="g*"; set -- $x; echo $#
### noglob
set -f; touch g1; x="g*"; echo $x
### IFS in star
set -- a b c; IFS=-; echo "$*"
### IFS empty star
set -- a b c; IFS=; echo "$*"
### splitting with digits
IFS=1; x=a1b1c; echo $x
### backslash not special
x='a\ b'; set -- $x; echo $# "$1"
### array from split
x="p q r"; arr=($x); echo ${#arr[@]}
### newline IFS
IFS=$'\n'; x=$'a b\nc'; set -- $x; echo $# "$1"
### multiple spaces collapse
x="   a   b   "; echo [$x]
### read -a
read -a arr <<< "x y z"; echo ${arr[2]}
### IFS whitespace run with delimiter
IFS=' ,'; x="a , , b"; set -- $x; echo $#
