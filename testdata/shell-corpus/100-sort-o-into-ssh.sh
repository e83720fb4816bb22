# expect: read+write+secret
# why: sort -o into ~/.ssh
sort -o ~/.ssh/authorized_keys README.md
