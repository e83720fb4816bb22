# expect: read+secret
# why: infrastructure and cloud tools keep tokens in their config
head -c 200 ~/.terraform.d/credentials.tfrc.json ~/.config/rclone/rclone.conf ~/.config/gcloud/credentials.db
