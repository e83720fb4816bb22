### eval of a decoded payload
eval "$(echo 'echo decoded' | base64 | base64 -d)"
### assignment prefix before a program
PATH="$PATH" ls -d .
### sed e flag runs nothing here
echo a | sed 's/a/b/'
### find exec
mkdir src; touch src/a.go src/b.go; find src -name '*.go' -exec echo found {} \; | sort
### find exec plus
mkdir src; touch src/a.go; find src -name '*.go' -exec echo batch {} +
### xargs sh
printf '1\n2\n' | xargs sh -c 'echo "[$0|$1]"'
### env payload
env X=1 sh -c 'echo $X'
### command payload
command echo via-command
### exec payload in a subshell
(exec echo execd)
### quoted program name
'echo' quoted
### alias is not expanded in a script
alias ll='echo aliased'; ll 2>/dev/null; echo $?
### function shadowing a builtin
cd() { echo "no cd $1"; }; cd /tmp
### brace group
{ echo one; echo two; }
### process substitution
cat <(echo from-procsub)
### tee into a file
echo teed | tee out > /dev/null; cat out
### input redirection
echo in > f; cat < f
### assignment changes a later step
d=sub; mkdir $d; ls -d $d
### export with an operand
export V=1; sh -c 'echo $V'
### a pipeline of reads
printf 'b\na\n' | sort | uniq | wc -l
### yes and head
yes x | head -n 2
### absolute program name
/bin/echo absolute
### sh -c payload
sh -c 'echo payload; exit 3'; echo $?
### bash -c payload
bash -c 'echo $((6*7))'
### nice
nice -n 1 echo niced
### nohup
nohup echo hup 2>/dev/null
### timeout
timeout 5 echo in-time
### timeout expiring
timeout 0.2 sleep 5; echo $?
### nested wrappers
env nice timeout 5 echo nested
### cd in a payload
mkdir d; sh -c 'cd d && pwd' | sed 's|.*/||'
### positional parameter
set -- arg; echo "$1"
### builtin eval
builtin eval 'echo beval'
### eval of a known string
eval 'x=1; echo $x'
### trap runs later
trap 'echo at-exit' EXIT; echo body
### lookup runs nothing
command -v ls >/dev/null && echo has-ls; type -t echo
### hash -p is not a lookup change here
hash -r; echo $?
### source a file
echo 'echo sourced $1' > lib.sh; source lib.sh arg
### dot a file
echo 'v=dotted' > lib.sh; . ./lib.sh; echo $v
### loop variable
for f in a b; do echo "$f"; done
### words read at run time
echo 'x y' > list; for w in $(cat list); do echo "<$w>"; done
### a branch
if [ -d . ]; then echo dir; fi
### case arm
case x in x) echo arm;; esac
### function called with an argument
f() { echo "got $1"; }; f val
### subshell that moves
mkdir d; (cd d; pwd | sed 's|.*/||')
### command substitution naming a file
echo key > k; echo "$(cat k)"
### home is known
echo "$HOME" | grep -c home
### dev null
echo x > /dev/null; cat /dev/null; echo ok
### descriptor duplication
echo dup 2>&1
### copies
echo c > a; cp a b; cat b
### moves
echo m > a; mv a b; cat b
### removes
touch r; rm r; ls
### chmod
touch s; chmod +x s; test -x s && echo exec
### dd
echo dd-data > in; dd if=in of=out 2>/dev/null; cat out
### exec with only a redirection
exec 2>/dev/null; ls nothing; echo $?
### here-document opens no file
cat <<EOS
doc
EOS
### here-string
cat <<< "herestr"
### a loop that reads
printf 'a\nb\n' | while read l; do echo "$l"; done
### links
echo t > target; ln -s target link; cat link
### a script file without shebang
printf 'echo from-file\n' > s.sh; chmod +x s.sh; ./s.sh
### sh of a file
printf 'echo file-arg $1\n' > s.sh; sh s.sh one
### sh reading stdin
echo 'echo from-stdin' | sh
### xargs with replacement
printf 'x\ny\n' | xargs -I{} echo "<{}>"
### xargs -n
printf 'a b c\n' | xargs -n 2 echo
### xargs -0
printf 'a\0b\0' | xargs -0 -n1 echo
### env -i
#! differs: deliberate: HOME is always set inside tandem's scripts, env -i too
env -i PATH="$PATH" sh -c 'echo "[$HOME]"'
### env -u
export U=1; env -u U sh -c 'echo "[$U]"'
### git version runs
git --version >/dev/null && echo git-ok
### grep -r in the workspace
mkdir g; echo needle > g/f; grep -r needle g
### sort -o
printf 'b\na\n' > f; sort -o f f; cat f
### kill is the system's
kill -l 9
