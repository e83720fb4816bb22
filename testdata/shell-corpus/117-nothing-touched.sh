# expect: none
# why: nothing touched
date
