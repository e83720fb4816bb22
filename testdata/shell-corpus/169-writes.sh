# expect: write
# why: &> writes
echo x &> log.txt
