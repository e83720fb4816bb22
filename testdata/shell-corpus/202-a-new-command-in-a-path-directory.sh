# expect: write+protected
# why: a new command in a PATH directory
echo x > ../bin/ls
