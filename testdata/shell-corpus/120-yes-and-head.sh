# expect: read
# why: yes and head
yes | head -n 3
