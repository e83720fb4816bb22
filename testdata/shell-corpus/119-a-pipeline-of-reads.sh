# expect: read
# why: a pipeline of reads
cat README.md | wc -l
