# expect: read+exec
# why: a file named - links to the key: a redirection from - opens that file, not standard input
python3 -c 'import os; os.symlink(os.path.expanduser("~/.ss") + "h/id_ed25519", "-")'
cat < -
