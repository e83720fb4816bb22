# expect: read+exec
# why: an abbreviated --compress-program
sort --compress=gzip README.md
