### an alias takes effect from the next line
shopt -s expand_aliases
alias e=echo; e one 2>/dev/null || echo not yet
e two
### an alias is not expanded in a function defined before it
shopt -s expand_aliases
f() { e in-f 2>/dev/null || echo not in f; }
alias e='echo alias'
f; e out
### an alias of a pipeline and a list
shopt -s expand_aliases
alias t='echo hi | tr a-z A-Z; echo two'
t
### an alias of a loop completed by the command
shopt -s expand_aliases
alias loop='for i in 1 2; do echo $i;'
loop done
### an alias's first word is expanded again, not the alias itself
shopt -s expand_aliases
alias hi='e_ hello' e_='echo __' ls='ls -d src'
hi world; ls
### a blank-ended alias expands the next word
shopt -s expand_aliases
x=x; alias e='echo $x ' w=word
e e w
### alias and unalias list and report
alias b=x a='y z'; alias; alias -p c a; echo $?; unalias c a; echo $?; alias; unalias; echo $?
### type finds each kind
mkdir -p d; touch d/ne; printf '' > d/x; chmod +x d/x
f() { :; }
PATH=d:$PATH type -t f cd while ne x
PATH=d:$PATH type x ne
PATH=d:$PATH type -P x cd; echo $?
PATH=d:$PATH type -p cd x; echo $?
type -a nosuch; echo $?
### command -v and -V
shopt -s expand_aliases; alias ll='ls -l'; f() { :; }
command -v f ll while cd nosuch; echo $?
command -V cd ll nosuch; echo $?
command -p -v nosuch-program; echo $?
### eval, source, builtin and shift take -- and name bad options
eval -- echo hi; eval -z; echo $?
echo 'echo sourced $1' > s.sh; source -- s.sh arg; source; echo $?; . ./nosuch; echo $?
mkdir -p dir; . ./dir; echo $?
builtin -- true; echo $?; builtin ls; echo $?
set -- a; shift x; echo $?; shift 3; echo $? $#
### history in a script is empty
history; echo $?; history x; echo $?
### mapfile -O, -s and -n
printf '%s\n' a b c d e | { mapfile -s 1 -n 2 -t x; declare -p x; }
printf 'a\nb\n' | { y=(p q r s); mapfile -O 5 -t y; declare -p y; }
printf '%s\0' 1 2 | { mapfile -d '' z; echo "${#z[@]} [${z[0]}]"; }
### a command name too long
./0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789
echo $?
### let's arguments end at a comment and go on inside parentheses
let z=2*3  # a comment
let x=( 1 ); let y=( x + z ); echo $x $y $z
### type and declare -f list a function as bash does
f() { echo a | tr a b; for i in 1 2; do [[ $i == 1 ]] && echo one; done; if true; then :; elif false; then :; else echo no; fi; case $1 in a|b) echo ab ;; esac; }
type f; declare -f f
### an alias that opens a block the line closes
shopt -s expand_aliases
alias LEFT='{'
LEFT echo one; echo two; }
### an alias that opens a loop the line finishes
shopt -s expand_aliases
alias e_='for i in 1 2 3; do echo '
e_ $i; done
### aliases chained by their blanks into a for loop
shopt -s expand_aliases
alias FOR1='for ' FOR2='FOR1 ' eye='i ' IN='in '
FOR2 eye IN 1 2; do echo $i; done
### an empty alias before arithmetic, after blank lines
shopt -s expand_aliases
alias a=

a (( var = 0 )); echo $?
### a later syntax error still stops the script
shopt -s expand_aliases
alias LEFT='('
LEFT echo one )
if then
echo never
### an alias defined on the line it would open is not used yet
shopt -s expand_aliases
alias LEFT='{'; LEFT echo one; }
echo never
### an alias whose text leaves a quote open ends the script
shopt -s expand_aliases
alias e_='echo "'
e_ x
echo never
### an alias whose text has a token out of place quotes that text
shopt -s expand_aliases
alias e_=';; oops'
e_ x
echo never
