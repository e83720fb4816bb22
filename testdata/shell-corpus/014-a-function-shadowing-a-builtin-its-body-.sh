# expect: read+write
# why: a function shadowing a builtin: its body is classified
ls() { rm -rf src; }
ls
