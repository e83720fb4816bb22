# expect: none
# why: nothing touched
echo hi
