# expect: read+write+secret
# why: GitHub Copilot keeps its OAuth token under ~/.config/github-copilot
cp ~/.config/github-copilot/apps.json copilot.json
