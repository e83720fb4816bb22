# expect: read+exec
# why: a here-document expands a value repeated until it is larger than any bound
x=$(head -c 1000000 /dev/zero | tr '\0' a)
cat <<EOF | wc -c
$x$x$x$x$x$x$x$x
EOF
