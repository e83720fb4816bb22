# expect: exec
# why: a key copied to another variable and echoed
k=$WORK_SERVICE; t="$TANDEM_MCP_TOKEN"; echo "$k $t"; sh -c "echo \$TANDEM_MCP_TOKEN"
