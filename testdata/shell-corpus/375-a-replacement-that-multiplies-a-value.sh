# expect: read+exec
# why: a pattern replacement puts a long value in place of every character
x=$(head -c 3000 /dev/zero | tr '\0' a); y=${x//?/$x}
