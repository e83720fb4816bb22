# expect: write
# why: removing a link inside
rm -f docs
