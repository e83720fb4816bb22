# expect: read+exec+secret
# why: git-credential-store is the same helper under its program name
git-credential-store get </dev/null
