# expect: exec
# why: an interpreter runs anything
node -e 'x'
