# expect: read+write
# why: a here-document opens no file; the output does
cat <<EOF > notes.md
hello
EOF
