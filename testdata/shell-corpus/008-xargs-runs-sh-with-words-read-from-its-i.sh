# expect: read+exec
# why: xargs runs sh with words read from its input
ls | xargs sh
