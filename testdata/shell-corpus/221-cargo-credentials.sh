# expect: write+secret
# why: cargo credentials
touch ~/.cargo/credentials.toml
