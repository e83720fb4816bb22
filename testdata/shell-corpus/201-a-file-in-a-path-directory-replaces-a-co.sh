# expect: read+write+protected
# why: a file in a PATH directory replaces a command
cp README.md ../bin/tool
