# expect: exec+write+protected
# why: sparse-checkout writes the config
git sparse-checkout set src
