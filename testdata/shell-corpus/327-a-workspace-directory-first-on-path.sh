# expect: read+exec
# why: a workspace directory first on PATH makes cat the workspace's bin/cat
export PATH="$PWD/bin:$PATH"; cat README.md
