# expect: exec
# why: NODE_OPTIONS --require loads a module before the program
NODE_OPTIONS='--require ./x.js' node -e 0
