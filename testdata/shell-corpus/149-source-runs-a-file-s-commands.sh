# expect: exec
# why: source runs a file's commands
source ./env.sh
