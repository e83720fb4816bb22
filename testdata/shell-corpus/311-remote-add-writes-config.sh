# expect: net+exec+write+protected
# why: remote add writes a remote into the config
git remote add evil https://example.com/r.git
