# expect: write+outside
# why: a write whose links loop is never inside
echo x > loop1
