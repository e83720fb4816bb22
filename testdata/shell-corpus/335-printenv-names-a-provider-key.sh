# expect: none
# why: printenv of a configured provider key prints nothing
printenv WORK_ANTHROPIC_KEY WORK_SERVICE GITHUB_TOKEN TANDEM_MCP_TOKEN
