### stops on failure
set -e; echo a; false; echo b
### status when stopped
set -e; false
### not in if condition
set -e; if false; then :; fi; echo went on
### not in and-or list
set -e; false || true; echo ok
### last of and list
set -e; true && false; echo reached
### not with negation
set -e; ! true; echo after
### in a subshell
set -e; (false; echo in); echo "out $?"
### subshell failing stops the parent
set -e; (false); echo never
### command substitution in assignment
set -e; x=$(false); echo never
### command substitution in argument
set -e; echo $(false) x; echo after
### function body
set -e; f() { false; echo in-f; }; f; echo after
### function in condition
set -e; f() { false; echo in-f; }; if f; then echo t; fi
### pipeline last stage
set -e; false | true; echo piped
### pipeline failing
set -e; true | false; echo never
### pipefail with errexit
set -eo pipefail; false | true; echo never
### while condition
set -e; while false; do :; done; echo fine
### until body
set -e; i=0; until [ $i -eq 1 ]; do i=1; done; echo fine
### set +e
set -e; set +e; false; echo continues
### errexit in brace group
set -e; { false; echo no; }; echo never
### errexit with trap
set -e; trap 'echo trapped' EXIT; false
### errexit arithmetic
set -e; (( 0 )); echo never
### errexit arithmetic in condition
set -e; if (( 0 )); then :; fi; echo fine
### set -o errexit
set -o errexit; false; echo never
### errexit and local
set -e; f() { local x=$(false); echo "local hides"; }; f
### inherited by bash -c
set -e; bash -c 'false; echo child'; echo never
### errexit in eval
set -e; eval 'false'; echo never
### errexit on missing command
set -e; nosuch; echo never
