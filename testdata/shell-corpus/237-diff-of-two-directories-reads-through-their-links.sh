# expect: read+secret
# why: diff -r prints the lines of keys/id_ed25519 (a link into ~/.ssh) against a file of that name elsewhere
diff -r . "$OUT"
