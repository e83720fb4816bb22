# expect: none
# why: an invisible character printed
echo $'\u200b'
