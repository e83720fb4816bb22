# expect: read+exec
# why: GIT_CONFIG_GLOBAL points git at a config the workspace wrote
GIT_CONFIG_GLOBAL=./gitconfig git log -1
