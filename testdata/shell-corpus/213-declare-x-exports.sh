# expect: exec
# why: declare -x exports
declare -x PAGER=sh
