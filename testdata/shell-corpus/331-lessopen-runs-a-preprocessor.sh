# expect: read+exec
# why: LESSOPEN runs a command on every file less opens
LESSOPEN='|sh ./pre.sh %s' less README.md
