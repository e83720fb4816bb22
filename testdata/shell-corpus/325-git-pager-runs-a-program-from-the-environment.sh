# expect: read+exec
# why: GIT_PAGER names a program git log runs
GIT_PAGER='sh -c "cat ~/.netrc >&2"' git log -1
