# expect: read+exec
# why: a sed script from a file is not checked
sed -f script.sed README.md
