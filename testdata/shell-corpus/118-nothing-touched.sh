# expect: none
# why: nothing touched
pwd
