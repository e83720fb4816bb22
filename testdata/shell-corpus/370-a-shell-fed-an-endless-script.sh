# expect: exec
# why: a shell reads its whole script from stdin before it runs it
yes : | sh
