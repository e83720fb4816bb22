# expect: read
# why: read takes a line from a file that has no newline and no end
read -r line < /dev/zero
