# expect: write+exec
# why: xargs rm of a secret whose name is put together in its input, never written whole
printf '%s%s\n' ke ys/id_ed25519 | xargs rm
