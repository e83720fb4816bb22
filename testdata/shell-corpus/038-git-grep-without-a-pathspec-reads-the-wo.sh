# expect: read
# why: git grep without a pathspec reads the working directory
git grep KEY
