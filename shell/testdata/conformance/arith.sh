### addition
echo $((1 + 2))
### precedence
echo $((2 + 3 * 4))
### parentheses
echo $(((2 + 3) * 4))
### division and modulo
echo $((7 / 2)) $((7 % 2))
### negative division
echo $((-7 / 2)) $((-7 % 2))
### power
echo $((2 ** 10))
### variables without dollar
x=5; echo $((x * 2))
### assignment in arithmetic
echo $((y = 3)); echo $y
### increment
i=1; ((i++)); echo $i
### pre increment
i=1; echo $((++i))
### compound assignment
x=10; ((x -= 3)); echo $x
### comparison
echo $((3 > 2)) $((3 < 2))
### logical
echo $((1 && 0)) $((1 || 0)) $((!0))
### ternary
echo $((1 ? 10 : 20))
### bitwise
echo $((5 & 3)) $((5 | 3)) $((5 ^ 3)) $((~0))
### shifts
echo $((1 << 4)) $((256 >> 2))
### hex and octal
echo $((0x10)) $((010)) $((2#101))
### base 36
echo $((36#z))
### division by zero
echo $((1 / 0)); echo after
### status of (( ))
(( 0 )); echo $?; (( 5 )); echo $?
### unset variable is zero
echo $((nope + 1))
### string variable recursion
a=b; b=7; echo $((a + 1))
### overflow wraps
echo $((9223372036854775807 + 1))
### comma
echo $((1, 2))
### let
let "z = 4 * 4"; echo $z
### nested arithmetic
echo $(( $((1+1)) * 3 ))
### arithmetic in index
a=(10 20 30); i=1; echo ${a[i+1]}
### invalid expression
#! differs: an arithmetic syntax error is found when the script is parsed, so tandem refuses the whole script (invalid, nothing runs)
echo $((1 +)); echo after
### declare -i
declare -i n; n="2 + 2"; echo $n
### negative numbers
echo $((-3 + -4))
### spaces in arithmetic
echo $((   4   -   1   ))
### c-style loop arithmetic
s=0; for ((i=1; i<=10; i++)); do ((s+=i)); done; echo $s
### expr program
expr 3 + 4
