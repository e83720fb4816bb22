# expect: net+exec+write+protected
# why: fetch --set-upstream writes the upstream into the config
git fetch --set-upstream origin main
