# expect: read
# why: -C only moves git
git -C src log
