# expect: exec
# why: the dot command runs a file's commands
. ./env.sh
