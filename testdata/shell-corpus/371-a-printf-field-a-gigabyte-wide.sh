# expect: none
# why: a printf field width allocates the whole field at once
printf '%999999999d' 1
