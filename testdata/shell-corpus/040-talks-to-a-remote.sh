# expect: net+exec
# why: talks to a remote
git clone https://example.com/r.git
