# expect: write+exec+secret
# why: a here-document of commands run by sh
sh <<'EOF'
rm -rf ~/.ssh
EOF
