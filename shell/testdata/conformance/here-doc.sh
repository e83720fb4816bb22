### plain
cat <<EOS
hello
EOS
### expands variables
x=world; cat <<EOS
hello $x
EOS
### quoted delimiter does not expand
x=world; cat <<'EOS'
hello $x
EOS
### double quoted delimiter
cat <<"EOS"
$HOME stays
EOS
### tabs stripped with <<-
cat <<-EOS
	indented
	EOS
### command substitution in body
cat <<EOS
$(echo sub)
EOS
### arithmetic in body
cat <<EOS
$((2+3))
EOS
### backslash escapes
cat <<EOS
a\$b \\ \`c\`
EOS
### backslash newline joins
cat <<EOS
one \
two
EOS
### two here-docs
cat <<A; cat <<B
first
A
second
B
### here-doc into a pipeline
cat <<EOS | tr a-z A-Z
shout
EOS
### here-doc into a loop
while read l; do echo "[$l]"; done <<EOS
x
y
EOS
### here-doc to a function
f() { cat; }; f <<EOS
to f
EOS
### empty here-doc
cat <<EOS
EOS
echo end
### delimiter with a quote inside
cat <<E\OS
$x raw
EOS
### here-doc with fd 3
cat 3<<EOS <&3
via three
EOS
### here-string with variable
x=abc; cat <<< "$x"
### here-string unquoted
x="a   b"; cat <<< $x
### here-doc keeps quotes
cat <<EOS
'single' "double"
EOS
### here-doc in a command substitution
x=$(cat <<EOS
inner
EOS
); echo "$x"
### here-doc with special chars
cat <<'EOS'
!@#$%^&*()
EOS
### read from here-doc
read a b <<EOS
one two three
EOS
echo "$a|$b"
### here-doc to wc
wc -l <<EOS
1
2
3
EOS
