# expect: read+write+protected
# why: branch -m rewrites the config's sections
git branch -m main trunk
