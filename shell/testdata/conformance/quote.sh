### single quotes
echo 'a $x `b` \n'
### double quotes expand
x=v; echo "x=$x"
### double quotes keep spaces
echo "a   b"
### backslash in double quotes
echo "a\$b \"q\" \\ \x"
### backslash outside quotes
echo a\ b \$x \\
### adjacent quotes
echo 'a'"b"c
### empty quotes are a word
set -- '' ""; echo $#
### dollar single quotes newline
echo $'a\nb'
### dollar single quotes tab
echo $'a\tb' | od -c | head -1
### dollar single quotes escapes
#! differs: locale: bash in LANG=C prints \u00E9 for a character outside ASCII; tandem prints it in UTF-8
echo $'\x41\101\u00e9'
### dollar single quotes quote
echo $'it\'s'
### dollar single quotes control
#! differs: interpreter: $'\cA' (a control character) is left as it is
printf '%s' $'\cA' | od -An -tx1
### dollar single quotes escape char
printf '%s' $'\e' | od -An -tx1
### dollar double quotes
echo $"plain"
### quotes in variable value
x="'q'"; echo $x
### single quote inside double
echo "it's"
### double quote inside single
echo 'say "hi"'
### escaped newline
echo a\
b
### quoted newline
echo "a
b"
### printf %q
printf '%q\n' "a b"
### star quoted
echo "*"
### tilde quoted
echo "~" '~'
### tilde unquoted
echo ~ | sed "s|$HOME|H|"
### hash in word
echo a#b #comment
### quoted hash
echo '#x'
### backslash at end of single quote
echo 'a\'
### dollar at end
echo "a$"
### brace not expanded in quotes
echo "{a,b}"
### brace expansion
echo {a,b}c
### escaped brace
echo \{a,b\}
