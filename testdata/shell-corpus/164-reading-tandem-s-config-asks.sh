# expect: read+secret
# why: tandem's config carries execution gates and may hold MCP server headers: reading it asks
cat ~/.config/tandem/config.json
