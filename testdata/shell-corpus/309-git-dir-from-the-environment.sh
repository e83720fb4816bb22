# expect: exec+write+protected
# why: GIT_DIR names the repository whose config is written
GIT_DIR=.git git config core.hooksPath .hk
