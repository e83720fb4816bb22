# expect: exec+write+protected
# why: checkout --track and switch -t write the upstream into the config
git checkout --track origin/feat; git switch -t origin/feat
