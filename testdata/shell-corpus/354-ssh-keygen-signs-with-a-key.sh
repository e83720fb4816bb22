# expect: read+write+secret
# why: ssh-keygen -Y sign signs with the agent's or ~/.ssh's key and writes the signature
ssh-keygen -Y sign -n file -f keys/id_ed25519 README.md
