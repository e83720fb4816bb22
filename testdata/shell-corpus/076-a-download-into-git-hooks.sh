# expect: read+write+net+protected
# why: a download into .git/hooks
curl -o .git/hooks/pre-push https://example.com/hook
