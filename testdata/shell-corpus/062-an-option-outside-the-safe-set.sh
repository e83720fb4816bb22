# expect: read+write+exec
# why: an option outside the safe set
sed --follow-symlinks -i s/a/b/ src/a.go
