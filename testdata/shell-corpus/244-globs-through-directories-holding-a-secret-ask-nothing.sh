# expect: read+outside
# why: globs that pass directories holding a secret (home, the directory holding it) learn names only and ask no secret; the plain file found in the home is held back from a step, so it is outside
ls ~/*.txt ../ws/src/*.go
