# expect: write+protected+secret
# why: removing the home removes every secret in it
rm -rf ~
