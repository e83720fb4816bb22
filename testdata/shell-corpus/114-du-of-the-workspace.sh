# expect: read
# why: du of the workspace
du -sh
