# expect: read+write
# why: less -o writes a log
less -o log.txt README.md
