### simple
echo "$(echo hi)"
### backquotes
echo `echo back`
### trailing newlines removed
x=$(printf 'a\n\n\n'); echo "[$x]"
### inner newlines kept
x=$(printf 'a\nb'); echo "$x"
### unquoted is split
set -- $(echo a b c); echo $#
### quoted is one word
set -- "$(echo a b c)"; echo $#
### nested
echo $(echo $(echo nested))
### status of assignment
x=$(exit 3); echo $?
### status of a command with it
echo $(exit 3); echo $?
### variables do not leak
x=1; y=$(x=2; echo $x); echo $x $y
### arithmetic inside
echo $(( $(echo 2) * 3 ))
### in a here-doc
cat <<EOS
val $(echo inside)
EOS
### with a pipeline
echo $(printf 'b\na\n' | sort)
### stderr is not captured
x=$(echo err >&2; echo out); echo "[$x]"
### stderr captured with 2>&1
x=$(ls nothing 2>&1); echo "${x:+captured}"
### reads a file
echo content > f; echo "$(< f)"
### empty
x=$(true); echo "[$x]"
### glob in the result
touch a1 a2; echo $(echo 'a*')
### quotes inside
echo "$(echo "a  b")"
### backquote with escaped backquote
echo `echo \`echo x\``
### in a for list
for w in $(echo one two); do echo "w=$w"; done
### in case
case $(echo b) in b) echo matched;; esac
### large output
x=$(seq 1 10000); echo ${#x}
### function output
f() { echo from-f; }; echo "got $(f)"
### exit in command substitution
x=$(exit 4; echo no); echo "$? [$x]"
### process substitution
cat <(echo procsub)
### diff of two process substitutions
diff <(echo a) <(echo a) && echo same
