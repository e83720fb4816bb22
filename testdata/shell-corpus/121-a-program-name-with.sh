# expect: exec
# why: a program name with /
./bin/cat README.md
