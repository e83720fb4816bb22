### DEBUG trap before each command, with the last status
trap 'echo "[$LINENO $?]"' DEBUG
false
x=1
(( x ))
f() { echo in; }
f
### DEBUG trap in a for loop and a case
trap 'echo dbg $LINENO' DEBUG
for i in 1 2; do :; done
case a in a) echo a ;; esac
### DEBUG trap in functions under set -T
set -T; trap 'echo dbg' DEBUG; f() { :; }; f
### exit in a DEBUG trap ends the script
trap 'exit 4' DEBUG; echo never
### set -e and a failing DEBUG trap
set -e; trap 'false' DEBUG; echo never
### RETURN trap set in a function
f() { trap 'echo ret' RETURN; echo in; }; f; echo out
### RETURN trap after source
echo 'echo sourced' > lib.sh; trap 'echo ret' RETURN; . ./lib.sh; echo out
### ERR trap in functions under set -E
trap 'echo err $LINENO' ERR; f() { false; }; f
set -E; f
### ERR trap runs once for a compound command
trap 'echo e $LINENO' ERR
{ false; }
if true; then false; fi
### trap -p with DEBUG and ERR
trap 'echo d' DEBUG; trap 'echo e' ERR; trap - DEBUG; trap -p
### a signal trap runs on kill of the shell itself
trap 'echo got USR1 $?' USR1; false; kill -USR1 $$; echo after=$?
### a signal ignored by default or by an empty trap
kill -URG $$; echo urg=$?; trap '' TERM; kill $$; echo term=$?; kill -0 $$; echo zero=$?
### exit in the EXIT trap sets the status
trap 'echo cleanup; exit 42' EXIT; echo body
### DEBUG trap before each simple stage of a pipeline
trap 'echo dbg $LINENO' DEBUG
echo a |
  tr a b
{ echo c; echo d; } | wc -l
false | false | false
### DEBUG trap in a C-style for loop
trap 'echo dbg $LINENO' DEBUG
for ((i = 3; i < 5; ++i)); do
  echo i=$i
done
### set -e inside the ERR trap ends the script
err() { echo err $?; false; echo never; }
trap err ERR
false; echo B
set -e
false; echo C
### exit in the ERR trap ends the script
trap 'echo err; exit 3' ERR; false; echo never
### an async simple command runs no ERR trap
set -E; trap 'echo err $LINENO' ERR
false & wait
{ false; echo async; } & wait
