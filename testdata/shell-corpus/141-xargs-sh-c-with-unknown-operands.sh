# expect: write+exec
# why: xargs sh -c with unknown operands
xargs -0 sh -c 'rm "$@"' sh
