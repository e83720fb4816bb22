# expect: read+exec
# why: a loop variable is unknown
for f in src/*.go; do cat "$f"; done
