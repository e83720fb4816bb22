# expect: net+exec+write+protected
# why: submodule add writes the submodule into the config
git submodule add https://example.com/m.git m
