# expect: read+exec
# why: sort reads every file its NUL-separated input names, which tandem cannot see before it runs: the key's name is decoded, never a word
base64 -d <<< a2V5cy9pZF9lZDI1NTE5AA== | sort --files0-from=-
