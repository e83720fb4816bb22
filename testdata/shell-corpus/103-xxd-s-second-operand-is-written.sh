# expect: read+write
# why: xxd's second operand is written
xxd README.md dump.hex
