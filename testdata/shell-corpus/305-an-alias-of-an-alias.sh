# expect: net+exec+write+protected
# why: an alias naming another alias that adds a remote
git -c alias.a=b -c alias.b='remote add evil https://example.com/r.git' a
