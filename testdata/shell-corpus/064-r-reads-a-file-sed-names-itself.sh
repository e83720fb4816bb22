# expect: read+exec
# why: r reads a file sed names itself
sed 'r /etc/passwd' README.md
