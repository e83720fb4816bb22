# expect: read
# why: 3 in head -n 3 is a count, not ~/.ssh/3
cd ~/.ssh; head -n 3 /dev/null; sort -k 2 /dev/null
