# expect: exec+write+protected
# why: --bare in .git takes the working directory as the repository
cd .git && git --bare config core.hooksPath /tmp/h
