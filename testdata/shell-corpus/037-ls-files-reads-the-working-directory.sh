# expect: read
# why: ls-files reads the working directory
git ls-files
