# expect: read+write+protected
# why: git runs core.pager from ~/.gitconfig
printf '[core]\n\tpager = sh x\n' > ~/.gitconfig; cp ~/.gitconfig ~/.config/git/config
