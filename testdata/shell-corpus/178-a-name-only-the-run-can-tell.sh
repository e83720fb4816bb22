# expect: write+exec
# why: a name only the run can tell
touch $(printf 'a\u202eb')
