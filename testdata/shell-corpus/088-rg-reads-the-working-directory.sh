# expect: read
# why: rg reads the working directory
rg x
