# expect: read+secret
# why: tandem's chats keep the output of steps the user allowed, secrets included
grep -r sk- ~/.local/state/tandem
