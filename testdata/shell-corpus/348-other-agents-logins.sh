# expect: read+secret
# why: Claude Code and Codex keep their logins in files of their own
cat ~/.claude/.credentials.json ~/.codex/auth.json
