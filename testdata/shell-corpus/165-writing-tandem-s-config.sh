# expect: write+secret
# why: tandem's config carries execution gates (the auto set, mcp.autoAllow): writing it always asks
echo '{}' > ~/.config/tandem/config.json
