# expect: read+write
# why: uniq's second operand is written
uniq README.md uniq.txt
