# expect: read+exec
# why: a pretty alias from config may hold a signature format
git log --pretty=myalias
