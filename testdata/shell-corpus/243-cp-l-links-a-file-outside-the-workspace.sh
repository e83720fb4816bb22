# expect: read+write+outside
# why: cp -l makes a hard link, so a later write to the workspace copy changes the file in HOME
cp -l "$HOME/notes.txt" notes.txt
