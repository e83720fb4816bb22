# expect: write
# why: timeout runs its payload
timeout 1 rm -rf src
