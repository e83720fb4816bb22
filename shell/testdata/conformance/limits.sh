### ulimit alone is ulimit -f
[ "$(ulimit)" = "$(ulimit -f)" ] && echo same
### ulimit -a lists every limit
ulimit -a | wc -l
### ulimit with two resources labels them
ulimit -f -n
### ulimit -S and -H
ulimit -S -n; ulimit -H -n; ulimit -Hn
### ulimit setting the value it has
ulimit -n $(ulimit -n); echo $?; ulimit -f unlimited; echo $?
### ulimit errors
ulimit -f zz; echo $?; ulimit -k; echo $?; ulimit -f -- -42; echo $?
### exit with too many arguments
exit 7 8; echo never
### exit with a word
exit zz; echo never
### exec with --
exec -- echo hi
