# expect: read
# why: globs that pass directories holding a secret (home, the directory holding it) learn names only, and ask nothing
ls ~/*.txt ../ws/src/*.go
