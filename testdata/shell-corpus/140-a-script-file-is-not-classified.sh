# expect: exec
# why: a script file is not classified
bash script.sh
