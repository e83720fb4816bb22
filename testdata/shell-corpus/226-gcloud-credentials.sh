# expect: read+secret
# why: gcloud credentials
cat ~/.config/gcloud/credentials.db
