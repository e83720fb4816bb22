# expect: read
# why: reading tandem's config is a read
cat ~/.config/tandem/config.json
