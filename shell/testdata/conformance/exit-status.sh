### true and false
true; echo $?; false; echo $?
### exit code
(exit 42); echo $?
### exit code wraps
(exit 256); echo $?
### missing command
nosuchcommand; echo $?
### missing command message
nosuchcommand arg
### not executable
touch f; ./f; echo $?
### directory as command
mkdir d; ./d; echo $?
### missing path
./missing; echo $?
### and status
true && false; echo $?
### or status
false || true; echo $?
### negation status
! true; echo $?
### script exit status
exit 3
### exit with no arg
false; exit
### status of assignment
x=1; echo $?
### status of assignment with substitution
x=$(false); echo $?
### status of empty command substitution
$(true); echo $?
### status after if
if false; then :; else (exit 4); fi; echo $?
### status of a signal
sh -c 'exit 137'; echo $?
### grep status
echo a | grep -q b; echo $?
### test status
[ 1 = 2 ]; echo $?
### builtin error status
cd /nonexistent; echo $?
### cd message
cd /nonexistent
### exit in a function
f() { exit 6; }; f; echo never
### return code range
f() { return 300; }; f; echo $?
### status saved
false; s=$?; true; echo $s
### colon
:; echo $?
### exit status of a bad option
set -o nosuchoption; echo $?
### status of wait with no jobs
wait; echo $?
