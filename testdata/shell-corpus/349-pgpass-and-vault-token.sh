# expect: read+secret
# why: a database password file and a Vault token, encoded on the way out
base64 ~/.pgpass ~/.vault-token
