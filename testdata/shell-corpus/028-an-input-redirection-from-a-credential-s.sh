# expect: read+secret
# why: an input redirection from a credential store
cat < ~/.aws/credentials
