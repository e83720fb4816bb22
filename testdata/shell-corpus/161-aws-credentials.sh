# expect: read+secret
# why: AWS credentials
cat ~/.aws/credentials
