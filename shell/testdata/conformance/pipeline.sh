### two stages
echo hello | cat
### three stages
printf 'b\na\nc\n' | sort | head -n 2
### status is the last stage's
false | true; echo $?
### status of a failing last stage
true | false; echo $?
### negated pipeline
! false | false; echo $?
### negation of success
! true; echo $?
### pipefail
set -o pipefail; false | true; echo $?
### pipefail picks the rightmost failure
set -o pipefail; (exit 3) | (exit 4) | true; echo $?
### PIPESTATUS
false | true | (exit 3); echo "${PIPESTATUS[@]}"
### PIPESTATUS of one command
(exit 5); echo "${PIPESTATUS[0]}"
### last stage runs in a subshell
x=1; echo 2 | read x; echo $x
### stderr pipe with |&
{ echo out; echo err >&2; } |& sort
### stderr is not piped without |&
{ echo out; echo err >&2; } 2>/dev/null | cat
### subshell stage
( echo sub | tr a-z A-Z ) | cat
### brace group stage
printf 'ax\nb\n' > f; { tr a b < f | grep x; } | sort
### brace group last
echo hi | { cat | tr a-z A-Z; }
### deeply nested
echo hi | ( cat | ( tr a-z A-Z | cat ) ) | cat
### while read loop
printf '1\n2\n3\n' | while read n; do echo "n=$n"; done
### while read keeps no variable
n=0; printf '1\n2\n' | while read x; do n=$((n+1)); done; echo $n
### yes and head
yes | head -n 3
### seq to wc
seq 1 1000 | wc -l
### long output through the pipe
seq 1 100000 | tail -n 1
### function in a pipeline
f() { echo "f:$1"; }; f a | tr a-z A-Z
### pipeline in a function
g() { echo "$1" | rev; }; g abc
### command substitution of a pipeline
x=$(echo abc | tr a-z A-Z); echo "$x"
### pipeline in an if
if echo yes | grep -q y; then echo found; fi
### pipeline in a loop
for i in 1 2 3; do echo $i | sed 's/^/#/'; done
### xargs in a pipeline
printf 'a\nb\n' | xargs echo
### stage order of output
echo one | cat; echo two
### here-string into a pipeline
tr a-z A-Z <<< hello | cat
### exit in a stage does not exit the script
echo a | exit 3; echo "still $?"
### cd in a stage does not last
cd / | true; pwd | sed "s|$PWD|here|"
### a stage reading nothing
true | cat; echo done
### stage with a redirection
echo x > out | cat; cat out
### nested pipeline with large output
( seq 1 20000 | cat ) | tail -n 1
### brace group with two pipelines
{ echo a | cat; echo b; } | { cat | sort -r; }
