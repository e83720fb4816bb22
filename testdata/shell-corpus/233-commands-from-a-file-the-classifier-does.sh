# expect: read+exec
# why: commands from a file the classifier does not read
sh -s < script.sh
