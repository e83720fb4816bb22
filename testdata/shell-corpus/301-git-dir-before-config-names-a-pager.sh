# expect: exec+write+protected
# why: --git-dir before config: the repository's pager is still written
git --git-dir=.git config core.pager 'sh x'
