# expect: read+exec
# why: git --config-env sets configuration from the environment
git --config-env=core.pager=EVIL log
