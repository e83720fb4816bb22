### output to a file
echo hi > f; cat f
### append
echo a > f; echo b >> f; cat f
### input from a file
printf 'x\ny\n' > f; wc -l < f
### stderr to a file
ls nothing-here 2> err; echo $?; grep -c . err
### stderr to stdout
{ echo out; echo err >&2; } 2>&1 | sort
### stdout to stderr
echo to-err >&2
### both to a file
{ echo a; echo b >&2; } &> both; sort both
### both appended
echo 1 > f; { echo 2; echo 3 >&2; } &>> f; cat f
### order of dups
{ echo err >&2; } 2>&1 >/dev/null
### noclobber
set -C; echo a > f; echo b > f; echo $?; cat f
### noclobber override
set -C; echo a > f; echo b >| f; cat f
### redirect to dev null
echo gone > /dev/null; echo kept
### input from dev null
cat < /dev/null; echo "[$?]"
### missing input file
cat < nothing; echo $?
### here-string
cat <<< "a b"
### exec fd 3 output
exec 3> f3; echo three >&3; exec 3>&-; cat f3
### exec fd 3 input
echo data > f; exec 3< f; read line <&3; echo "$line"; exec 3<&-
### fd 4 on a command
echo four 4>f4 >&4; cat f4
### read and write fd
echo abc > f; exec 5<> f; read -n 1 c <&5; echo "$c"
### duplicating stdout to fd 3 and back
exec 3>&1; echo via3 >&3; exec 3>&-
### closing stdout
#! differs: interpreter: writing to a closed stdout (>&-) is not an error
{ echo x; } >&-; echo $?
### redirect on a compound command
for i in 1 2; do echo $i; done > f; cat f
### redirect on a brace group
{ echo a; echo b; } > f; wc -l < f
### redirect on a subshell
( echo a; echo b ) > f; cat f
### redirect before the command
> f echo first; cat f
### redirect in the middle
echo a > f b; cat f
### truncate with colon
echo x > f; : > f; wc -c < f
### create empty file
> f; ls f
### write then read with cat
printf 'line1\nline2\n' > f && cat f
### variable as target
name=tgt; echo v > "$name"; cat tgt
### target with spaces
echo sp > "a b"; cat "a b"
### ambiguous redirect
x="a b"; echo y > $x; echo $?
### redirect of a missing directory
echo x > nodir/f; echo $?
### here-doc to a file
cat > f <<EOS
one
EOS
cat f
### stdin of a while loop from a file
printf '1\n2\n' > f; while read l; do echo "<$l>"; done < f
### fd 3 in a loop
printf 'a\nb\n' > f; while read -u 3 l; do echo "$l"; done 3< f
### tee
echo t | tee f; cat f
### dev stderr
echo e > /dev/stderr
### dev stdout
echo o > /dev/stdout
### dup of a closed fd
echo x >&7; echo $?
