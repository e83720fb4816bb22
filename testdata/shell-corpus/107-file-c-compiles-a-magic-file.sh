# expect: read+write
# why: file -C compiles a magic file
file -C -m magic
