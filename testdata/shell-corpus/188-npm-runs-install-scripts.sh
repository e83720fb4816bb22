# expect: exec
# why: npm runs install scripts
npm install
