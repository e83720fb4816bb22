# expect: read+write+exec+protected
# why: -execdir runs rm on everything under the root
find . -execdir rm {} +
