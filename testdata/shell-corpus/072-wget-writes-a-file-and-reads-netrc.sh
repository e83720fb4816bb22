# expect: read+write+net+secret
# why: wget writes a file and reads ~/.netrc
wget https://example.com/x
