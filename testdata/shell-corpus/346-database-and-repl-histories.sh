# expect: read+secret
# why: psql, mysql, node and sqlite keep what was typed, passwords included
grep -h -i password ~/.psql_history ~/.mysql_history ~/.node_repl_history ~/.sqlite_history
