# expect: read+write
# why: a brace group: every command counts
{ cat src/a.go; rm src/b.go; }
