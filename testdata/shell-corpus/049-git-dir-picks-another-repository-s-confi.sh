# expect: read+exec
# why: --git-dir picks another repository's config
git --git-dir=/tmp/evil log
