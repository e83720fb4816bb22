# expect: read+exec
# why: a relative PATH entry picks programs by the working directory
PATH=bin:/usr/bin:/bin cat README.md
