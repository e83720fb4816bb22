# expect: none
# why: /dev/null is harmless
echo x > /dev/null
