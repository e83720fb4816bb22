# expect: net+exec+write+protected
# why: push -u writes the upstream into the config
git push -u origin main
