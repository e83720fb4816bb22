# expect: read+exec
# why: a thousand variables of 3 MB each: every value is below the bound, their sum is not
x=$(head -c 3000000 /dev/zero | tr '\0' a)
for i in $(seq 1000); do eval "v$i=\$x\$i"; done
