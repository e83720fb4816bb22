# expect: exec
# why: enable -f loads a library
enable -f ./x.so x
