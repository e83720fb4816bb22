# expect: exec+write+protected
# why: -C into a subdirectory: the repository's config is still written
git -C src config core.hooksPath ../.hk
