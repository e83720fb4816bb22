# expect: write+exec+protected+secret
# why: sudo runs as another user
sudo rm -rf /
