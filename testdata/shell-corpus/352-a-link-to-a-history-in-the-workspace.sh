# expect: read+write+secret
# why: a link made in the workspace reaches the history it points at
ln -s ~/.bash_history h && cat h
