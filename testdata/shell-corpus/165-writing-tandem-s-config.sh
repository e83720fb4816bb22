# expect: write+protected
# why: writing tandem's config
echo '{}' > ~/.config/tandem/config.json
