# expect: write+protected
# why: /usr/bin is on PATH
rm /usr/bin/true
