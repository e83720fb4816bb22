# expect: read
# why: rg lists the working directory
rg --files
