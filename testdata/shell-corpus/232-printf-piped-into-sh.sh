# expect: write+exec
# why: printf piped into sh
printf 'rm -rf src' | sh
