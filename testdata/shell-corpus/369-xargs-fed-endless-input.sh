# expect: exec
# why: tandem's xargs reads its whole input before it runs
yes | xargs echo
