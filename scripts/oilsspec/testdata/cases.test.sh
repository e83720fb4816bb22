## compare_shells: bash dash
## oils_failures_allowed: 1

#### one line, stdout key
echo hi
## stdout: hi

#### blank lines and comments inside the code
# a comment line is dropped
x=1

  # an indented one too
echo $x
## STDOUT:
1
## END
## status: 0

#### qualified expectations after the code
f() { return 3; }
f
## status: 3
## OK dash status: 2
## N-I bash/mksh STDOUT:
something

## END
## BUG zsh stdout-json: ""

#### keys before the code
## tags: interactive
echo before
## stdout: before

#### code given as a key
## code: echo "a  b"
## stdout: a  b

#### a block whose END is left out
cat <<EOF
body
EOF
## STDOUT:
body
#### the case after it
echo last
