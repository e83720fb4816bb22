package interp_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// patchCases are scripts whose output bash gives and v3.14.1 did not; each
// patch listed in the README adds its own.
var patchCases = map[string][]struct{ script, want string }{
	"last pipeline command in a subshell": {
		{"x=1; echo 2 | read x; echo $x", "1\n"},
		{"n=0; printf '1\\n2\\n' | while read l; do n=$((n+1)); done; echo $n", "0\n"},
		{"echo a | exit 3; echo \"still $?\"", "still 3\n"},
		{"set -o pipefail; false | true; echo $?", "1\n"},
		{"echo x | echo foo bar > >(read l; echo \"${l//o/e}\"); wait", "fee bar\n"},
	},
	"PIPESTATUS": {
		{"false | true | (exit 3); echo \"${PIPESTATUS[@]}\"", "1 0 3\n"},
		{"(exit 5); echo \"${PIPESTATUS[0]}\"", "5\n"},
		{"! false | false; echo \"${PIPESTATUS[@]}\"", "1 1\n"},
		{"{ false | true; }; echo \"${PIPESTATUS[@]}\"", "1 0\n"},
		{"true; echo \"${PIPESTATUS[@]}\"", "0\n"},
	},
	"descriptors 3 to 9": {
		{"exec 3>&1; echo via3 >&3; exec 3>&-", "via3\n"},
		{"{ { echo out; echo err >&2; } 3>&1 1>&2 2>&3 | tr a-z A-Z; } 2>/dev/null", "ERR\n"},
		{"exec 4>&1; exec 4>&-; echo x >&4", "gosh: line 1: 4: Bad file descriptor\n"},
		{"read l 3<<EOF <&3\nfrom three\nEOF\necho \"$l\"", "from three\n"},
		{"while read -u 3 l; do echo \"<$l>\"; done 3<<EOF\na\nb\nEOF", "<a>\n<b>\n"},
		{"echo x >&7; echo $?", "gosh: line 1: 7: Bad file descriptor\n1\n"},
	},
	"list expansions inside a quoted word": {
		{"set -- a b c; for w in \"-$@-\"; do echo \"[$w]\"; done", "[-a]\n[b]\n[c-]\n"},
		{"set --; for w in \"-$@-\"; do echo \"[$w]\"; done", "[--]\n"},
		{"set --; for w in \"$@\"; do echo x; done; echo end", "end\n"},
		{"a=(x 'y z'); printf '[%s]' \"<${a[@]}>\"; echo", "[<x][y z>]\n"},
		{"set -- a b; printf '[%s]' \"-$*-\"; echo", "[-a b-]\n"},
	},
	"single quotes in a quoted ${x:-word}": {
		{"echo \"${Unset:-'b'}\"", "'b'\n"},
		{"x=1; echo \"${x:+'alt'}\"", "'alt'\n"},
		{"echo ${Unset:-'b'}", "b\n"},
		{"x=a; echo \"${x#'a'}\"", "\n"},
		{"cat <<EOF\n${Unset:-'h'}\nEOF", "'h'\n"},
	},
	"errors as bash words them": {
		{"true\nreadonly r=1; r=2", "gosh: line 2: r: readonly variable\n"},
		{"echo x > nodir/f; echo $?", "gosh: line 1: nodir/f: No such file or directory\n1\n"},
		{"local x", "gosh: line 1: local: can only be used in a function\n"},
		{"echo $0", "gosh\n"},
	},
	"IFS splitting": {
		{"IFS=:; x=a::b; set -- $x; echo $#", "3\n"},
		{"IFS=:; x=:a; set -- $x; echo \"$# [$1]\"", "2 []\n"},
		{"IFS=:; x=a:; set -- $x; echo $#", "1\n"},
		{"IFS=' ,'; x='a , , b'; set -- $x; echo $#", "3\n"},
		{"IFS=' :'; x=' a : b '; set -- $x; echo $#", "2\n"},
		{"x='  a   b  '; set -- $x; echo $#", "2\n"},
		{"IFS=:; x=:a; set -- pre$x; echo \"$# $1\"", "2 pre\n"},
	},
	"builtin messages and statuses as in bash": {
		{"cd /nonexistent; echo $?", "gosh: line 1: cd: /nonexistent: No such file or directory\n1\n"},
		{"break; echo $?", "gosh: line 1: break: only meaningful in a `for', `while', or `until' loop\n0\n"},
		{"set -o nosuch; echo $?", "gosh: line 1: set: nosuch: invalid option name\n2\n"},
		{"return; echo $?", "gosh: line 1: return: can only `return' from a function or sourced script\n2\n"},
		{"f() { false; return; }; f; echo $?", "1\n"},
		{"set -- 1 2 3 4 5 6 7 8 9 ten; echo ${10}", "ten\n"},
		{"echo ${nope?}", "gosh: line 1: nope: parameter not set\n"},
		{"set -u; echo $nope; echo never", "gosh: line 1: nope: unbound variable\n"},
		{"[ a = a; echo $?", "gosh: line 1: [: missing `]'\n2\n"},
		{"[ a b c ]; echo $?", "gosh: line 1: [: b: binary operator expected\n2\n"},
		{"readonly r=1; r=2; echo never", "gosh: line 1: r: readonly variable\n"},
		{"[ a -eq 1 ]; echo $?", "gosh: line 1: [: a: integer expression expected\n2\n"},
		{"x=; test \"$x\" -lt 3; echo $?", "gosh: line 1: test: : integer expression expected\n2\n"},
		{"[ ' 2' -eq 2 ] && [ -3 -lt 0 ] && [[ a -eq 0 ]] && echo ints", "ints\n"},
	},
	"classic test by its number of arguments": {
		{"[ ! ]; echo $?; [ ! ! ]; echo $?; [ ]; echo $?", "0\n1\n1\n"},
		{"[ = ]; echo $?; [ ] ]; echo $?; [ '(' ]; echo $?", "0\n0\n0\n"},
		{"[ -z -a -a ]; echo $?; [ -z -a ] ]; echo $?", "0\n0\n"},
		{"v=-f; [ $v = -f ] && [ -f = $v ] && echo same", "same\n"},
		{"e=; [ $e = '' ]; echo $?", "gosh: line 1: [: =: unary operator expected\n2\n"},
		{"[ '(' foo ]; echo $?", "gosh: line 1: [: (: unary operator expected\n2\n"},
		{"test -n x y; echo $?", "gosh: line 1: test: x: binary operator expected\n2\n"},
		{"[ ! -z x -a '(' a = a ')' ]; echo $?; [ a '<' b ]; echo $?", "0\n0\n"},
		{"[ a = a b c d ]; echo $?; [ a = a -x ]; echo $?", "gosh: line 1: [: too many arguments\n2\ngosh: line 1: [: syntax error: `-x' unexpected\n2\n"},
	},
	"break and continue counts as in bash": {
		{"x=oops; while true; do echo hi; break $x; done; echo never", "hi\ngosh: line 1: break: oops: numeric argument required\n"},
		{"for x in a b; do echo $x; continue 1 2; done; echo never", "a\ngosh: line 1: continue: too many arguments\n"},
		{"for x in a b; do break 0; done; echo s=$?", "gosh: line 1: break: 0: loop count out of range\ns=1\n"},
		{"for x in a b; do echo $x; continue 5; done; echo s=$?", "a\nb\ns=0\n"},
		{"for i in 1 2; do for j in a b; do echo $i$j; break -- 2; done; done", "1a\n"},
	},
	"a subshell's EXIT trap and return as in bash": {
		{"(trap 'echo sub-exit' EXIT; echo in-sub); echo out", "in-sub\nsub-exit\nout\n"},
		{"(trap 'echo t' EXIT; exit 3); echo $?", "t\n3\n"},
		{"x=$(trap 'echo t' EXIT; echo a); echo \"[$x]\"", "[a\nt]\n"},
		{"{ trap 'echo t' EXIT; echo a; } | cat; echo a | { trap 'echo t2' EXIT; cat; }", "a\nt\na\nt2\n"},
		{"trap 'echo p' EXIT; (echo sub); echo main", "sub\nmain\np\n"},
		{"(trap 'echo t; exit 5' EXIT; echo x); echo $?", "x\nt\n5\n"},
		{"(trap 'echo bg-exit' EXIT; echo bg) & wait; echo done", "bg\nbg-exit\ndone\n"},
		{"f() { (return 2); echo r=$?; return 3 | cat; echo r=$?; x=$(return 4; echo no); echo r=$? \"[$x]\"; }; f", "r=2\nr=0\nr=4 []\n"},
	},
	"break and continue skip the rest of the commands they are in": {
		{"for i in 1 2; do { echo a; break; echo b; }; done; echo end", "a\nend\n"},
		{"for i in 1 2; do if true; then echo $i; continue; echo b; fi; echo c; done", "1\n2\n"},
		{"for i in 1 2; do case x in x) echo a; break; echo b;; esac; done", "a\n"},
		{"for i in 1 2; do eval 'echo a; break; echo b'; done", "a\n"},
		{"for i in 1 2; do for j in 1 2; do echo $i$j; continue 2; echo no; done; echo no2; done", "11\n21\n"},
		{"while true; do break && echo no; done; echo end", "end\n"},
		{"f() { break; }; for i in 1 2; do f; echo $i; done", "gosh: line 1: break: only meaningful in a `for', `while', or `until' loop\n1\ngosh: line 1: break: only meaningful in a `for', `while', or `until' loop\n2\n"},
		{"f() { for j in 1; do break 2; done; echo in-f; }; for i in 1 2; do f; echo $i; done", "in-f\n1\nin-f\n2\n"},
	},
	"set -e where bash ignores it": {
		{"set -e; if ( false; echo in ); then echo t; fi; echo after", "in\nt\nafter\n"},
		{"set -e; while ( false; echo w ); do break; done; ( false; echo x ) || echo or", "w\nx\n"},
		{"set -e; x=$(false; echo cs); echo $x; false; echo never", "cs\n"},
	},
	"arithmetic as bash evaluates it": {
		{"a=(1 2); (( a[0]++, ++a[1] )); echo ${a[@]}", "2 3\n"},
		{"declare -A A; (( A[k] += 42 )); A[j]=3; (( A[j] *= 2 )); echo ${A[k]} ${A[j]}", "42 6\n"},
		{"(( 1[2] = 3 )); echo $?", "gosh: line 1: ((: 1[2] = 3 : attempted assignment to non-variable (error token is \"\")\n1\n"},
		{"x='1 + 2'; echo $(( x * 2 )); let \"z = 4 * 4\"; echo $z", "6\n16\n"},
		{"set -u; (( y + 1 )); echo never", "gosh: line 1: y: unbound variable\n"},
		{"set -u; echo $(( y + 1 )); echo never", "gosh: line 1: y: unbound variable\n"},
		{"echo $((2#A)); echo never\necho $? next", "gosh: line 1: 2#A: value too great for base (error token is \"2#A\")\n1 next\n"},
		{"echo $((0x1X)) $((083))", "gosh: line 1: 0x1X: value too great for base (error token is \"0x1X\")\n"},
		{"echo $((1/0)); echo never\n(( 1/0 )); echo s=$?", "gosh: line 1: 1 / 0: division by 0 (error token is \"0\")\ngosh: line 2: ((: 1 / 0 : division by 0 (error token is \"0 \")\ns=1\n"},
		{"echo $((2**-1))", "gosh: line 1: 2 ** -1: exponent less than 0 (error token is \"1\")\n"},
		{"( echo $((1/0)); echo in ); echo out=$?; eval 'echo $((1/0)); echo in'; echo eval=$?", "gosh: line 1: 1 / 0: division by 0 (error token is \"0\")\nout=1\ngosh: line 1: 1 / 0: division by 0 (error token is \"0\")\neval=1\n"},
		{"echo $((64#@_)) $((36#Z)) $((36#z)) $((64#Z))", "4031 35 35 61\n"},
		{"base=16; echo $(( ${base}#ff )) $(( $base#1f )); foo=y; echo $(( x$foo = 42 )) $xy", "255 31\n42 42\n"},
		{"s=abc; echo ${s[@]} ${s[*]}; echo $((@))", "abc abc\ngosh: line 1: @: syntax error: operand expected (error token is \"@\")\n"},
	},
	"cd as in bash": {
		{"cd a b; echo $?; cd -x; echo $?", "gosh: line 1: cd: too many arguments\n1\ngosh: line 1: cd: -x: invalid option\ncd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n2\n"},
		{"unset OLDPWD; cd -; echo $?; cd ''; echo $?; HOME= cd; echo $?", "gosh: line 1: cd: OLDPWD not set\n1\n0\n0\n"},
	},
	"shopt as in bash": {
		{"shopt -p nullglob; shopt -q nullglob; echo q=$?; shopt -s nullglob; shopt nullglob; shopt -po errexit", "shopt -u nullglob\nq=1\nnullglob       \ton\nset +o errexit\n"},
		{"shopt -s strict_arith || echo st=$?; shopt -q extglob nullglob; echo $?", "gosh: line 1: shopt: strict_arith: invalid shell option name\nst=1\n1\n"},
		{"shopt -x; echo $?", "gosh: line 1: shopt: -x: invalid option\nshopt: usage: shopt [-pqsu] [-o] [optname ...]\n2\n"},
	},
	"a redirection after its command's words": {
		{"echo $(echo cmd >&2) 2>/dev/null", "cmd\n\n"},
		{"f='a b'; echo hi > $f; echo s=$?; echo hi > x-{1,2}; echo s=$?", "gosh: line 1: $f: ambiguous redirect\ns=1\ngosh: line 1: x-{1,2}: ambiguous redirect\ns=1\n"},
		{"e=; { echo hi; } > $e; echo s=$?", "gosh: line 1: $e: ambiguous redirect\ns=1\n"},
	},
	"trap as in bash": {
		{"trap 'echo bye' EXIT; trap 'a'\\''b' INT; ( trap ); trap - SIGINT; trap -p", "trap -- 'echo bye' EXIT\ntrap -- 'a'\\''b' SIGINT\ntrap -- 'echo bye' EXIT\nbye\n"},
		{"trap x TERM 2 0; trap 0 2; trap; trap - int FOO; echo $?; trap '' EXIT; trap -p EXIT", "trap -- 'x' SIGTERM\ngosh: line 1: trap: FOO: invalid signal specification\n1\ntrap -- '' EXIT\n"},
		{"trap foo; echo $?", "trap: usage: trap [-lp] [[arg] signal_spec ...]\n2\n"},
		{"trap 'echo line=$LINENO' ERR\n\nfalse\nf() {\n  false\n}\nf\necho $LINENO", "line=3\nline=7\n8\n"},
	},
	"-v of an array element": {
		{"a=(1 2 ''); [[ -v a[1] ]]; echo $?; [[ -v a[3] ]]; echo $?; test -v 'a[1+1]'; echo $?; [[ -v a[-1] ]]; echo $?", "0\n1\n0\n0\n"},
		{"declare -A A=([k]=v); [[ -v A[k] ]]; echo $?; [[ -v A[z] ]]; echo $?; s=x; [[ -v s[0] ]]; echo $?", "0\n1\n0\n"},
	},
	"a tilde after a colon in an assignment": {
		{"HOME=/h; x=a:~/b:~:c~; echo $x; x=~:y; echo $x; x='q:~'; echo $x; x=q:~,; echo $x", "a:/h/b:/h:c~\n/h:y\nq:~\nq:~,\n"},
	},
	"anchored replacement": {
		{"x=abca; echo ${x/#a/X} ${x/%a/X}", "Xbca abcX\n"},
		{"x=aab; echo ${x/#a*/X} ${x/%b/} ${x/#b/X}", "X aa aab\n"},
		{"a=(ab cb); echo ${a[@]/#?b/X}", "X X\n"},
		{"x='#a'; echo ${x/'#'a/X}", "X\n"},
	},
	"BASH_SUBSHELL and FUNCNAME": {
		{"echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL; (echo $BASH_SUBSHELL))", "0\n1\n2\n"},
		{"echo x | { echo $BASH_SUBSHELL; }; echo $(echo $BASH_SUBSHELL)", "1\n1\n"},
		{"f() { echo \"${FUNCNAME[@]}\"; g; }; g() { echo \"${FUNCNAME[@]}\"; }; f; echo \"[${FUNCNAME[@]}]\"", "f\ng f\n[]\n"},
		{"f() { echo $FUNCNAME | cat; }; f", "f\n"},
	},
	"declaration builtins as commands": {
		{"FOO=foo readonly v=1; echo \"[$FOO] $v\"", "[] 1\n"},
		{"e=export; $e x=1; declare -p x", "declare -x x=\"1\"\n"},
		{"shopt -s expand_aliases; alias e=export\ne y=2; declare -p y", "declare -x y=\"2\"\n"},
		{"f() { t= local x=1; echo $x; }; f", "1\n"},
		{"w='a b'; d=declare; $d v=$w; echo \"[$v]\"", "[a]\n"},
		{"r=readonly; $r z=1; z=2; echo never", "gosh: line 1: z: readonly variable\n"},
	},
	"declare -i, -l, -u and -F": {
		{"declare -i x=1+2; x+=3; echo $x; x=x*2; echo $x", "6\n12\n"},
		{"declare -l l=AbC; declare -u u=aBc; echo $l $u; l=XY; echo $l", "abc ABC\nxy\n"},
		{"declare -ir i=3; declare -p i", "declare -ir i=\"3\"\n"},
		{"declare -i n; read n <<< '2*3'; printf -v m %s 1+1; echo $n $m", "6 1+1\n"},
		{"f() { :; }; g() { :; }; declare -F; declare -F g h; echo $?", "declare -f f\ndeclare -f g\ng\n1\n"},
	},
	"declare -p as bash prints it": {
		{"declare u; declare -a a; declare -p u a", "declare -- u\ndeclare -a a\n"},
		{"x=$'a\\tb'; y='q\"$'; declare -p x y", "declare -- x=$'a\\tb'\ndeclare -- y=\"q\\\"\\$\"\n"},
		{"declare -A m=([k]=v ['a b']=1); declare -p m", "declare -A m=([k]=\"v\" [\"a b\"]=\"1\" )\n"},
		{"declare -A m=([k]=v); declare -A m; echo ${m[k]}", "v\n"},
		{"x=1; f() { local x; echo \"[$x]\"; }; f", "[]\n"},
		{"declare a; a+=(b); echo ${a[@]} ${#a[@]}", "b 1\n"},
		{"declare -r r=1; declare -a a=(x); s=3; declare -pr | grep -v ID=; declare -pa | grep -v -e PIPESTATUS -e BASH_", "declare -r r=\"1\"\ndeclare -a a=([0]=\"x\")\n"},
		{"a=b; declare -p a=x; echo $?", "gosh: line 1: declare: a=x: not found\n1\n"},
		{"a[5]=x; a[2]=y; declare -p a", "declare -a a=([2]=\"y\" [5]=\"x\")\n"},
	},
	"printf %q and -v": {
		{"printf '%q\\n' 'a b' \"it's\" $'x\\ty' '' '~a' 'b~'", "a\\ b\nit\\'s\n$'x\\ty'\n''\n\\~a\nb~\n"},
		{"printf -v v '%03d-' 7 8; echo $v", "007-008-\n"},
		{"a=(x y z); i=1; printf -v 'a[i+1]' %s Z; declare -A m; printf -v 'm[k k]' %s v; echo ${a[@]} \"${m[\"k k\"]}\"", "x y Z v\n"},
	},
	"read -n, -N and -d": {
		{"echo abcdef | { read -n 3 x; read y; echo $x $y; }", "abc def\n"},
		{"echo abc | { read -n2 x; echo $x; }", "ab\n"},
		{"printf 'a b\\ncd' | { read -N 4 x y; echo \"[$x][$y]\"; }", "[a b\n][]\n"},
		{"printf 'a:b' | { read -d : x; echo $x; }", "a\n"},
		{"read -p 'no terminal: ' x <<< y; echo $x", "y\n"},
		{"read -u -3 x; echo $?", "gosh: line 1: read: -3: invalid file descriptor specification\n1\n"},
	},
	"set -C": {
		{"cd \"$(mktemp -d)\"; set -C; echo a > f; echo b > f; echo $?; echo c >| f; cat f; echo d > /dev/null && echo ok; rm f",
			"gosh: line 1: f: cannot overwrite existing file\n1\nc\nok\n"},
	},
	"umask": {
		{"umask $(umask); echo $?; umask u=rwx; echo $?", "0\n0\n"},
		{"umask 077; umask; umask -S; umask -p; umask -pS; (umask 0; umask); umask; umask g+w,o-r; umask; umask -S a=rx",
			"0077\nu=rwx,g=,o=\numask 0077\numask -S u=rwx,g=,o=\n0000\n0077\n0057\nu=rx,g=rx,o=rx\n"},
		{"umask 222; umask 8; echo $?; umask -x; echo $?; umask x=r; echo $?; umask u+z; echo $?; umask",
			"gosh: line 1: umask: 8: octal number out of range\n1\ngosh: line 1: umask: -x: invalid option\numask: usage: umask [-p] [-S] [mode]\n2\n" +
				"gosh: line 1: umask: `x': invalid symbolic mode operator\n1\ngosh: line 1: umask: `z': invalid symbolic mode character\n1\n0222\n"},
		{"umask 0124; umask 'u+r,,u-r'; umask +; umask; umask -; umask =; umask; umask 0124; umask +=; umask 7777; umask; umask -Sx; umask -S -- =rx; umask ''",
			"gosh: line 1: umask: `,': invalid symbolic mode operator\n0124\n0777\ngosh: line 1: umask: `=': invalid symbolic mode character\n0777\n" +
				"gosh: line 1: umask: -x: invalid option\numask: usage: umask [-p] [-S] [mode]\nu=rx,g=rx,o=rx\ngosh: line 1: umask: `\x00': invalid symbolic mode operator\n"},
		{"cd \"$(mktemp -d)\"; umask 027; echo a > f; (umask 0; echo b > g); echo c > h; stat -c %a f g h; rm f g h", "640\n666\n640\n"},
	},
	"a simple command's line as bash's": {
		{"trap 'echo err $LINENO' ERR\nfalse \"\n\"\nx=1 false \"\n\"\nfalse 2>/dev/null \"\n\"", "err 3\nerr 4\nerr 6\n"},
		{"cd /nonexistent-dir \"\n\" 2>/dev/null; echo $?\ncd /nonexistent-dir \\\n x 2>/dev/null; cd /nonexistent-dir \"\n\" 2>&1 | cut -c1-12",
			"1\ngosh: line 4\n"},
	},
	"time reports on standard error": {
		{"{ time :; } 2>/dev/null; echo t; { time -p :; } 2>&1 >/dev/null | cut -c1-4", "t\nreal\nuser\nsys \n"},
	},
	"wait tells of a job a signal ended": {
		{"cd \"$(mktemp -d)\"; sleep 5 & kill -HUP $!; wait $! 2>e; echo $?; sleep 5 & kill -TERM $!; wait 2>>e; f() { sleep 5; }; f & kill -9 $!; wait 2>>e; wait $! 2>>e\n" +
			"trap : USR1; sleep 5 & kill -USR1 $!; wait 2>>e; tr -s ' ' < e | sed 's/: [0-9]* /: PID /'; grep -c Killed e",
			"129\ngosh: line 1: PID Hangup sleep 5\ngosh: line 1: PID Killed f\n1\n"},
	},
	"exec -a and -l": {
		{"exec -x; echo after $?; exec -a; echo after2 $?; exec -c true; echo after3 $?",
			"gosh: line 1: exec: -x: invalid option\nexec: usage: exec [-cl] [-a name] [command [argument ...]] [redirection ...]\nafter 2\n" +
				"gosh: line 1: exec: -a: option requires an argument\nexec: usage: exec [-cl] [-a name] [command [argument ...]] [redirection ...]\nafter2 2\n" +
				"gosh: line 1: exec: -c: not supported by tandem's shell; run env -i COMMAND instead\nafter3 2\n"},
	},
	"failglob": {
		{"shopt -s failglob; echo *.nomatch-x; echo same\necho next $?; (echo *.nomatch-y); echo sub $?",
			"gosh: line 1: no match: *.nomatch-x\nnext 1\ngosh: line 2: no match: *.nomatch-y\nsub 1\n"},
		{"set -e; shopt -s failglob; (echo *.nomatch-x); echo not\necho not", "gosh: line 1: no match: *.nomatch-x\n"},
		{"set -e; shopt -s failglob\nif echo *.nomatch-x; then :; fi\necho not", "gosh: line 2: no match: *.nomatch-x\n"},
	},
	"indirect expansion as in bash": {
		{"x=xx; xx=aaabcc; echo ${!x:2} ${!x#*a} ${!x/a*b/d} ${!x:+set}", "abcc aabcc dcc set\n"},
		{"ref=u; echo \"[${!ref-default}]\"; a=(p q); r='a[1]'; echo ${!r}; r='a[@]'; printf '<%s>' \"${!r}\"; echo", "[default]\nq\n<p><q>\n"},
		{"set -- one two; r=@; printf '<%s>' \"${!r}\"; r='*'; printf '<%s>' \"${!r}\"; echo", "<one><two><one two>\n"},
		{"declare -A h=([k]=v1); v1=value; echo \"${!h[@]:1:2}\" \"${!h[@]}\"", "al k\n"},
		{"x=y; echo ${!x:?no y}", "gosh: line 1: !x: no y\n"},
		{"echo ${!undef}; echo same\necho next $?; b='no name'; echo ${!b}\necho $?",
			"gosh: line 1: undef: invalid indirect expansion\nnext 1\ngosh: line 2: no name: invalid variable name\n1\n"},
	},
	"namerefs as in bash": {
		{"f() { local -n r=$1; r[1]=Z; }; a=(x y z); f a; echo ${a[@]}", "x Z z\n"},
		{"f3() { local -n r=$1; r=x; }; f2() { f3 \"$@\"; }; f1() { local v=v; f2 v; echo $v; }; f1", "x\n"},
		{"a=(p q r); declare -n e='a[2]'; echo $e; e=R; echo ${a[@]}; unset e; echo ${#a[@]}", "r\np q R\n2\n"},
		{"x=foo; ref=x; typeset -n ref; echo $ref; typeset +n ref; echo $ref; declare -n n; n=x; echo $n", "foo\nx\nfoo\n"},
		{"x=X; y=Y; declare -n r=x; declare -n r=y; r=z; unset r; echo \"$x [$y]\"", "X []\n"},
		{"declare -n r=a s='a[@]'; a=('x y' z); printf '<%s>' \"${r[@]}\" \"$s\" \"${s[@]}\"; echo", "<x y><z><x y><z>\n"},
		{"r='#'; declare -n r; echo $?", "gosh: line 1: declare: `#': invalid variable name for name reference\n1\n"},
		{"declare -n a=b b=a; a=1\necho $?; echo \"[$b]\"", "gosh: line 1: warning: a: circular name reference\n1\ngosh: line 2: warning: b: circular name reference\n[]\n"},
	},
	"arrays as bash assigns and expands them": {
		{"declare -A A; A[x]=1; A[y]=2; A[x]+=0; A=([p]=1 [q]=2) ; A+=([r]=3); echo ${#A[@]} \"${!A[@]}\" \"${A[@]}\"", "3 r q p 3 2 1\n"},
		{"declare -A A=(k1 v1 k2); i=1; A[i+1]=s; declare -p A", "declare -A A=([k1]=\"v1\" [k2]=\"\" [i+1]=\"s\" )\n"},
		{"declare -A A=([j]=1 2)", "gosh: line 1: A: 2: must use subscript when assigning associative array\n"},
		{"a[2]=y; a[2]+=z; typeset b[3]=4 b[5]=6; declare -p a b; readonly c[1]=x", "declare -a a=([2]=\"yz\")\ndeclare -a b=([3]=\"4\" [5]=\"6\")\ngosh: line 1: readonly: `c[1]': not a valid identifier\n"},
		{"i=1; a=([100+i++]=$((i++)) [200+i++]=$((i++))); echo ${!a[@]} ${a[@]}", "103 204 1 2\n"},
		{"a=(1); declare -A a; echo $?; declare -A a=([k]=v); echo never\necho $?", "gosh: line 1: declare: a: cannot convert indexed to associative array\n1\ngosh: line 1: a: cannot convert indexed to associative array\n1\n"},
		{"a=(x); echo \"[${a[-3]}]\"; a[-3]=y; echo no\nunset 'a[-3]'", "gosh: line 1: a: bad array subscript\n[]\ngosh: line 1: a[-3]: bad array subscript\ngosh: line 2: unset: [-3]: bad array subscript\n"},
		{"s=(''); e=(); printf '<%s>' \"${s[@]:-w}\" \"${e[@]-w}\" \"${u[@]:-w}\" \"${e[@]:+w}\" ${s[@]:-w}; echo", "<w><w><w><w>\n"},
		{"a=(x \"it's\"); a[5]=$'t\\tb'; echo \"${a[@]@Q}\"; declare -a d; declare -A D; printf '<%s>' \"${d[@]}\" \"${D[@]}\" \"${!D[@]}\"; echo", "'x' 'it'\\''s' $'t\\tb'\n<>\n"},
		{"readonly r=1; r=2; echo same\necho next $?; unset r; echo $?", "gosh: line 1: r: readonly variable\nnext 1\ngosh: line 2: unset: r: cannot unset: readonly variable\n1\n"},
		{"f() { local v=1; { local; local -p v; } | cat; }; f", "declare -- v=\"1\"\ndeclare -- v=\"1\"\n"},
		{"d=x; typeset s$d+=a s$d+=b; readonly r=1; typeset +r r=2; echo $sx $r", "gosh: line 1: typeset: r: readonly variable\nab 1\n"},
		{"a=(x y); export a; typeset -n -x r=a2; export u; env | grep -E '^(a|r|u)='", "r=a2\n"},
		{"eval -- \"$(a=(); a[3]= a[4]=x; declare -p a)\"; echo ${!a[@]}; a[4]+=(y); echo same\necho $?", "3 4\ngosh: line 1: a[4]: cannot assign list to array member\n1\n"},
		{"typeset -n ref; ref=(x y); declare -p ref", "gosh: line 1: warning: ref: removing nameref attribute\ndeclare -a ref=([0]=\"x\" [1]=\"y\")\n"},
		{"declare -A A; A[k]=v; A=s; printf '<%s>' \"${A[0]}\" \"${!u[@]}\" \"${u@Q}\"; echo", "<s><>\n"},
	},
	"background jobs as in bash": {
		{"true & [ $! -gt 4194304 ] && echo above", "above\n"},
		{"sleep 5 & kill -TERM $!; echo kill=$?; wait $!; echo wait=$?", "kill=0\nwait=143\n"},
		{"sleep 5 & sleep 5 & kill -9 %1 %+; wait %1 2>/dev/null; echo $?; wait %2 2>/dev/null; wait %1; echo $?", "137\ngosh: line 1: wait: %1: no such job\n127\n"},
		{"kill -l 0 INT 130 SIGUSR1; kill -l 128; echo $?", "EXIT\n2\nINT\n10\ngosh: line 1: kill: 128: invalid signal specification\n1\n"},
		{"trap -l | { IFS= read -r l; echo \"$l\"; }", " 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT\t 4) SIGILL\t 5) SIGTRAP\n"},
		{"(exit 6) & wait %1; echo $?; wait %1; echo $?", "6\ngosh: line 1: wait: %1: no such job\n127\n"},
		{"wait zzz; echo $?; true & wait -n; echo $?; wait -n; echo $?", "gosh: line 1: wait: `zzz': not a pid or valid job spec\n1\n0\n127\n"},
		{"(exit 3) & p=$!; wait -n $p; echo a=$?; wait -n %1 bad; echo b=$?; sleep 0.2 & wait -n bad $! 2>/dev/null; echo c=$?",
			"a=3\ngosh: line 1: wait: %1: no such job\ngosh: line 1: wait: bad: no such job\nb=127\nc=0\n"},
		{"sleep 5 & jobs; jobs -p | while read p; do [ $p = $! ] && echo same; done; kill %1", "[1]+  Running                 sleep 5 &\nsame\n"},
		{"trap 'echo usr1' USR1; kill -USR1 $$; echo after=$?; kill -URG $$; echo urg=$?; kill $$; echo never", "usr1\nafter=0\nurg=0\n"},
	},
	"special variables as in bash": {
		{"echo a b; echo \"$_\"; x=1; echo \"[$_]\"", "a b\nb\n[]\n"},
		{": one; (( 1 )); [[ a ]]; echo $_; : two; (echo $_); echo $_ | cat", "one\ntwo\ntwo\n"},
		{"declare s=v; echo $_; declare a=(1 2); echo $_", "s=v\na\n"},
		{"set -u; echo \"[${_+set}]\"", "[set]\n"},
		{"echo one\n(( x = LINENO )); echo $x", "one\n2\n"},
		{"[ $BASHPID = $$ ] && echo same; (a=$BASHPID; [ $a != $$ ] && [ $a != $(echo $BASHPID) ] && echo differs)", "same\ndiffers\n"},
		{"[ \"$SECONDS\" -ge 0 ] && [ -n \"$OSTYPE\" ] && [ -n \"$HOSTNAME\" ] && echo set", "set\n"},
	},
	"DEBUG and RETURN traps, set -E and set -T": {
		{"trap 'echo \"[$LINENO $?]\"' DEBUG\nfalse\nx=1\n(( x ))\nf() { echo in; }\nf", "[2 0]\n[3 1]\n[4 0]\n[6 0]\nin\n"},
		{"trap 'echo dbg' DEBUG; for i in 1 2; do :; done", "dbg\ndbg\ndbg\ndbg\n"},
		{"set -T; trap 'echo dbg' DEBUG; f() { :; }; f", "dbg\ndbg\ndbg\n"},
		{"set -e; trap 'false' DEBUG; echo never", ""},
		{"trap 'exit 4' DEBUG; echo never", ""},
		{"trap 'echo bye; exit 42' EXIT; echo body", "body\nbye\n"},
		{"set -e; trap 'echo in; false; echo never' ERR; false; echo never", "in\n"},
		{"trap 'echo err; exit 3' ERR; false; echo never", "err\n"},
		{"set -E; trap 'echo err $LINENO' ERR; false & wait; { false; } & wait", "err 1\n"},
		{"trap 'echo dbg $LINENO' DEBUG\necho a |\n  cat\n{ echo b; } | cat", "dbg 2\ndbg 3\na\ndbg 4\nb\n"},
		{"trap 'echo dbg' DEBUG; for ((i = 0; i < 1; i++)); do :; done", "dbg\ndbg\ndbg\ndbg\ndbg\n"},
		{"f() { trap 'echo ret' RETURN; echo in; }; f; echo out", "in\nret\nout\n"},
		{"trap 'echo ret' RETURN; f() { :; }; f; echo out", "out\n"},
		{"trap 'echo err $LINENO' ERR; f() { false; }; f\nset -E; f", "err 1\nerr 1\nerr 2\n"},
		{"trap 'echo e $LINENO' ERR\n{ false; }\nif true; then false; fi", "e 2\ne 3\n"},
	},
	"ulimit, exit and exec as in bash": {
		{"[ \"$(ulimit)\" = \"$(ulimit -f)\" ] && ulimit -f -n | grep -c '^file size .*(blocks, -f)\\|^open files .*(-n)'", "2\n"},
		{"ulimit -n $(ulimit -n); echo $?; ulimit -f zz; echo $?; ulimit -k; echo $?", "0\ngosh: line 1: ulimit: zz: invalid number\n1\ngosh: line 1: ulimit: -k: invalid option\nulimit: usage: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]\n2\n"},
		{"exec -- echo hi", "hi\n"},
		{"exit 1 2; echo never", "gosh: line 1: exit: too many arguments\n"},
		{"exit x; echo never", "gosh: line 1: exit: x: numeric argument required\n"},
	},
	"alias, type, command and the meta builtins": {
		{"f() { echo a | tr a b; for i in 1 2; do echo $i; done; if true; then :; elif false; then :; else echo no; fi; g & h; }; declare -f f",
			"f () \n{ \n    echo a | tr a b;\n    for i in 1 2;\n    do\n        echo $i;\n    done;\n    if true; then\n        :;\n    else\n        if false; then\n            :;\n        else\n            echo no;\n        fi;\n    fi;\n    g & h\n}\n"},
		{"let z=2*3  # a comment\necho $z",
			"6\n"},
		{"let x=( 1 ); let y=( x + 2 ); echo $x $y",
			"1 3\n"},
		{"printf '%s\\n' a b c d e | { mapfile -s 1 -n 2 -t x; declare -p x; }",
			"declare -a x=([0]=\"b\" [1]=\"c\")\n"},
		{"printf 'a\\nb\\n' | { y=(p q r s); mapfile -O 5 -t y; declare -p y; }",
			"declare -a y=([0]=\"p\" [1]=\"q\" [2]=\"r\" [3]=\"s\" [5]=\"a\" [6]=\"b\")\n"},
		{"printf '%s\\0' 1 2 | { mapfile -d '' z; echo \"${#z[@]} [${z[0]}]\"; }",
			"2 [1]\n"},
		{"mapfile -O -1 w; echo $?; mapfile -n x w; echo $?",
			"gosh: line 1: mapfile: -1: invalid array origin\n1\ngosh: line 1: mapfile: x: invalid line count\n1\n"},
		{"history; echo $?; history 1 2; echo no",
			"0\ngosh: line 1: history: too many arguments\n"},
		{"shopt -s expand_aliases\nalias e=echo; e one &>/dev/null || echo not yet\ne two",
			"not yet\ntwo\n"},
		{"shopt -s expand_aliases\nf() { e in-f &>/dev/null || echo not in f; }\nalias e='echo alias'\nf\ne out\ng() { e in-g; }\ng",
			"not in f\nalias out\nalias in-g\n"},
		{"shopt -s expand_aliases\nalias t='echo hi | tr a-z A-Z; echo two' hi='e_ hello' e_='echo __'\nt\nhi world",
			"HI\ntwo\n__ hello world\n"},
		{"shopt -s expand_aliases\nx=x\nalias e='echo $x ' ls='ls -d /'\ne e\nls",
			"x echo x\n/\n"},
		{"shopt -s expand_aliases\nalias m='echo 1\necho 2'\nv=3\nm $v",
			"1\n2 3\n"},
		{"shopt -s expand_aliases\nalias loop='for i in 1 2; do echo $i;'\nloop done",
			"1\n2\n"},
		{"cd \"$(mktemp -d)\"; mkdir d; touch d/ne; printf '' > d/x; chmod +x d/x; PATH=d; f() { :; }; type -t f cd while ne; type x ne; type -a x; type -P x cd; echo $?; type -p cd ne; echo $?; type -a ne; echo $?",
			"function\nbuiltin\nkeyword\nfile\nx is d/x\nne is d/ne\nx is d/x\nd/x\n1\nd/ne\n0\ngosh: line 1: type: ne: not found\n1\n"},
		{"shopt -s expand_aliases; alias ll='ls -l'; f() { :; }; command -v f ll while nosuch; echo $?; command -V cd nosuch; echo $?; command -v -p nosuch; echo $?",
			"f\nalias ll='ls -l'\nwhile\n0\ncd is a shell builtin\ngosh: line 1: command: nosuch: not found\n0\n1\n"},
		{"alias b=x a='y z'; alias; alias -p c a; echo $?; unalias c a; echo $?; alias; unalias; echo $?",
			"alias a='y z'\nalias b='x'\nalias a='y z'\nalias b='x'\ngosh: line 1: alias: c: not found\nalias a='y z'\n1\ngosh: line 1: unalias: c: not found\n1\nalias b='x'\nunalias: usage: unalias [-a] name [name ...]\n2\n"},
		{"eval -- echo hi; eval -z; echo $?; source; echo $?; . /nonexistent; echo $?; shift x; echo $?; builtin nosuch; echo $?; builtin -- true; echo $?",
			"hi\ngosh: line 1: eval: -z: invalid option\neval: usage: eval [arg ...]\n2\ngosh: line 1: source: filename argument required\nsource: usage: source filename [arguments]\n2\ngosh: line 1: /nonexistent: No such file or directory\n1\ngosh: line 1: shift: x: numeric argument required\n1\ngosh: line 1: builtin: nosuch: not a shell builtin\n1\n0\n"},
		{"history; echo $?; history x; echo $?; set -- a; shift 2; echo $? $#",
			"0\ngosh: line 1: history: x: numeric argument required\n1\n1 1\n"},
	},
	"nocasematch": {
		{"shopt -s nocasematch; [[ a == A ]] && echo eq; [[ A == [a] ]] && echo class", "eq\nclass\n"},
		{"shopt -s nocasematch; case A in a) echo case;; esac; [[ A =~ ^a$ ]] && echo re", "case\nre\n"},
		{"shopt -s nocasematch; [ a = A ]; echo $?; x=A; echo ${x#a}", "1\nA\n"},
		{"[[ a == A ]]; echo $?", "1\n"},
	},
	"the word of ${x:-word}": {
		{"i=0; x=x; echo ${x:-$((i++))} $i; echo ${u:-$((i++))} $i", "x 0\n0 1\n"},
		{"printf '[%s]' ${u:-'a b'} ${u:-\"c  d\"e f}; echo", "[a b][c  de][f]\n"},
		{"printf '[%s]' ${u:-\"*\"} ${u:-\"\"}; echo", "[*][]\n"},
		{"printf '[%s]' ${u:-a b} ${u:-a\\ b} x${u:+n}y; echo", "[a][b][a b][xy]\n"},
		{"set --; echo \"${@-minus}|${@+plus}\"; e=(); echo \"${e[@]-minus}|${e[@]+plus}\"", "minus|\nminus|\n"},
		{"a=('' x); printf '[%s]' \"${a[@]-minus}\" \"${a[@]+plus}\"; echo", "[][x][plus]\n"},
		{"declare -A m=(); echo \"${m[@]-minus}\"; echo \"${u-\\z}\" ${u-\\z}", "minus\n\\z z\n"},
	},
	"pwd, PWD and OLDPWD as in bash": {
		{"cd /; PWD=foo; pwd; unset PWD; pwd; pwd /tmp", "/\n/\n/\n"},
		{"cd /; cd /tmp; env | grep -c '^OLDPWD=/$'; env | grep -c '^PWD=/tmp$'", "1\n1\n"},
		{"cd /tmp; cd nonexistent_ZZ/..; echo $? $PWD; cd ./../tmp; echo $? $PWD", "gosh: line 1: cd: nonexistent_ZZ/..: No such file or directory\n1 /tmp\n0 /tmp\n"},
	},
	"[[ ]] as bash reads its operands": {
		{"[[ 'a b' =~ '^(a b)$' ]]; echo $?; [[ a.b =~ \"a.b\" ]]; echo $?; [[ axb =~ \"a.b\" ]]; echo $?", "1\n0\n1\n"},
		{"[[ 'a b' =~ ^(a\\ b)$ ]] && echo \"${BASH_REMATCH[1]}\"; [[ x =~ y ]]; echo ${#BASH_REMATCH[@]}", "a b\n0\n"},
		{"x=1+2; [[ $x -eq 3 && 017 -eq 0xf && -0123 -eq -83 && 64#a -eq 10 ]] && echo arith", "arith\n"},
		{"[[ 1 -eq 1/0 ]]; echo $?", "gosh: line 1: [[: 1/0: division by 0 (error token is \"0\")\n1\n"},
		{"[[ 'foo()' == *'()' ]] && echo q; [[ 'foo()' == *\\(\\) ]] && echo e; [[ 'foo' == *'()' ]] || echo no", "q\ne\nno\n"},
		{"HOME=; [[ ~ ]]; echo $?; [[ $HOME == ~ ]]; echo $?", "1\n0\n"},
		{"HOME='^a$'; [[ $HOME =~ ~ ]]; echo $?; HOME='/x*'; [[ /xyz == ~ ]]; echo $?; [[ '/x*/b' == ~/b ]]; echo $?; x=~/c; echo $x", "0\n1\n0\n/x*/c\n"},
	},
	"tildes in a word that looks like an assignment": {
		{"HOME=/h; echo x=~ a=~/b:~ a=x:~/b", "x=/h a=/h/b:/h a=x:/h/b\n"},
		{"HOME=/h; echo --p=~ a=b=~ \"x=~\" x=\\~ 1x=~", "--p=~ a=b=~ x=~ x=~ 1x=~\n"},
	},
	"patterns of ${x#pat} and ${x/pat/with}": {
		{"y='*ab'; echo ${y#\\*} ${y#\"*\"} ${y%'b'}; x=abc; echo ${x#\\*} ${x#\"*\"}", "ab ab *a\nabc abc\n"},
		{"a=(abc '*d'); echo \"${a[@]#\\*}\"", "abc d\n"},
		{"shopt -s extglob\nx=foo.py; echo ${x%.@(py|cc)} ${x##@(foo)} ${x//@(?.py)/Z}", "foo .py foZ\n"},
	},
	"${x@Q} and the like per element": {
		{"a=(x 'y z'); echo ${a[@]@Q}; echo ${a@Q} \"${a[@]@U}\"", "'x' 'y z'\n'x' X Y Z\n"},
		{"x=\"a'b\"; t=$'a\\tb'; e=; echo ${x@Q} ${t@Q} ${e@Q} ${undef@Q}.", "'a'\\''b' $'a\\tb' '' .\n"},
		{"set -- a 'b c'; printf '[%s]' \"${@@Q}\"; echo", "['a']['b c']\n"},
	},
	"an empty anchored pattern": {
		{"a=(aa bb ''); printf '[%s]' ${a[@]/#/p-} \"${a[@]/%/-s}\"; echo", "[p-aa][p-bb][p-][aa-s][bb-s][-s]\n"},
		{"x=abc; echo ${x/#/P} ${x/%/S} ${x/#/}", "Pabc abcS abc\n"},
	},
	"brace expansion with tildes and empty words": {
		{"HOME=/h; echo {foo~,~}/bar ~{/src,/lib}", "foo~/bar /h/bar /h/src /h/lib\n"},
		{"printf '[%s]' {X,,Y,} a{,} ''; echo", "[X][Y][a][a][]\n"},
		{"HOME=; printf '[%s]' ~ ~/a; echo", "[][/a]\n"},
	},
	"extended patterns are words": {
		{"a=help b=verbose; [[ --verbose == --@($a|$b) ]] && echo T; [[ --oops == --@($a|$b) ]] || echo F", "T\nF\n"},
		{"p=no; [[ --no-long-option == --@(help|$p-@(long|short)-'option') ]] && echo T", "T\n"},
		{"[[ '|' == @('|'|x) ]] && echo pipe; [[ y == @('|'|x) ]] || echo no; [[ 'a b' == @(a b|c) ]] && echo space", "pipe\nno\nspace\n"},
	},
	"quote removal in a word taken whole": {
		{"x=\\*; echo \"$x\"", "*\n"},
		{"x=a\\b\\\\c; echo \"$x\"", "ab\\c\n"},
		{"export y=\\[; echo \"$y\"", "[\n"},
		{"[[ \\a == a ]] && echo same", "same\n"},
		{"case '*' in \\*) echo star;; esac; case b in \\*) echo wrong;; esac", "star\n"},
	},
	"printf as bash 5.2": {
		{"printf '[%6.4d][%-6.2s][%*.*s][%#x][%X][%u]\\n' 42 spam 5 2 xyz 0 255 -1", "[  0042][sp    ][   xy][0][FF][18446744073709551615]\n"},
		{"printf '%d %d %o\\n' \\'a 3abc 0x10; echo $?", "gosh: line 1: printf: 3abc: invalid number\n97 3 20\n1\n"},
		{"printf '%.2f %g %e\\n' 3.14159 0.0001 -inf", "3.14 0.0001 -inf\n"},
		{"printf '%b|%s\\n' '\\0101\\c' x; echo; printf '\\0101'; echo", "A\n\x081\n"},
		{"printf '%d\\n' 1 x 2", "1\ngosh: line 1: printf: x: invalid number\n0\n2\n"},
		{"printf 'a%zb' 1; printf 'a%z'; echo \" $?\"; printf '%y'; echo \" $?\"", "a1gosh: line 1: printf: `%z': missing format character\na 1\ngosh: line 1: printf: `y': invalid format character\n 1\n"},
		{"TZ=UTC; export TZ; printf '%(%F %T)T|%5.2(%Y)T\\n' 86399 0", "1970-01-01 23:59:59|   19\n"},
		{"echo -ne 'a\\tb\\0101\\101'; echo -e 'x\\cy'; echo -nx", "a\tbA\\101x-nx\n"},
	},
	"read as bash 5.2": {
		{"IFS='x '; echo 'a xx b' | { read -a a; echo ${#a[@]} \"[${a[1]}]\"; }; echo 'a ax  x  ' | { read p q; echo \"[$p][$q]\"; }", "3 []\n[a][ax  x]\n"},
		{"IFS='x '; echo xxx | { read p q; echo \"[$p][$q]\"; }; echo 'x \\ ' | { read p q; echo \"[$p][$q]\"; }", "[][xx]\n[][ ]\n"},
		{"printf 'a\\\\,b,c' | { read -d , r; echo \"$r\"; }; echo '' | { read -a e; echo ${#e[@]}; }", "a,b\n0\n"},
		{"read -t 0 < /dev/null; echo $?; read -t 1x v; echo $?; read -t -0.5 v < /dev/null; echo $?", "0\ngosh: line 1: read: 1x: invalid timeout specification\n1\n1\n"},
	},
	"getopts as bash 5.2": {
		{"set -- -ab -c x -d; while getopts abc: o; do echo \"$o ${OPTARG-u} $OPTIND\"; done; echo $OPTIND", "a u 1\nb u 2\nc x 4\ngosh: illegal option -- d\n? u 5\n5\n"},
		{"set -- -c; getopts :c: o; echo \"$o $OPTARG\"; OPTIND=1; getopts c: o; echo \"$o ${OPTARG-u}\"", ": c\ngosh: option requires an argument -- c\n? u\n"},
		{"set -- -a -- b; while getopts a o; do :; done; echo $OPTIND; set --; getopts a o; echo $? $OPTIND", "3\n1 1\n"},
	},
	"options and set as bash 5.2": {
		{"set -u; echo $- $SHELLOPTS; SHELLOPTS=x; echo no", "huBc braceexpand:hashall:interactive-comments:nounset\ngosh: line 1: SHELLOPTS: readonly variable\n"},
		{"_s='a b' _q=\"it's\" _e=; _a=(1 '2 3'); set | grep '^_[a-z]'", "_a=([0]=\"1\" [1]=\"2 3\")\n_e=\n_q='it'\\''s'\n_s='a b'\n"},
		{"set + a; echo \"[$*]\"; set - +; echo \"[$*]\"; set + -; echo \"[$*]\"", "[a]\n[+]\n[+]\n"},
		{"(set -eu; echo $x; echo no); echo $?; (set -u; echo $x); echo $?", "gosh: line 1: x: unbound variable\n1\ngosh: line 1: x: unbound variable\n1\n"},
		{"set -x; echo '' 'b c' \"it's\"", "+ echo '' 'b c' 'it'\\''s'\n b c it's\n"},
		{"shopt -s progcomp autocd xpg_echo; echo $? 'a\\tb'", "0 a\tb\n"},
	},
	"NUL bytes as bash 5.2": {
		{"s=$(printf 'a\\000b'); echo ${#s}; printf '.\\000.' | { read r; echo ${#r}; }; printf '.\\000.\\nx\\n' | { mapfile m; echo ${#m[0]} ${#m[@]}; }", "gosh: line 1: warning: command substitution: ignored null byte in input\n2\n2\n1 2\n"},
	},
	"code in eval, source and traps at bash's lines": {
		{"true\neval 'echo $LINENO; readonly r=1; r=2'", "2\ngosh: line 2: r: readonly variable\n"},
		{"eval \"true\ntrue\nfi\"; echo $?", "gosh: eval: line 5: syntax error near unexpected token `fi'\ngosh: eval: line 5: `fi'\n2\n"},
		{"eval 'echo >'", "gosh: eval: line 1: syntax error near unexpected token `newline'\ngosh: eval: line 1: `echo >'\n"},
		{"trap 'echo <' EXIT; echo $?", "0\ngosh: exit trap: line 1: syntax error near unexpected token `newline'\ngosh: exit trap: line 1: `echo <'\n"},
		{"\n\ntrap '\nreadonly r=1; r=2; echo $LINENO' ERR\nfalse", "gosh: line 6: r: readonly variable\n"},
		{"\ntrap 'echo $LINENO' EXIT", "1\n"},
		{"trap 'echo <' USR1; kill -USR1 $$", "gosh: trap: line 1: syntax error near unexpected token `newline'\ngosh: trap: line 1: `echo <'\n"},
		{"x=$(\n) readonly r=1; r=2", "gosh: line 2: r: readonly variable\n"},
		{"f() { :; }; trap 'f; return 3' DEBUG\n\n:", "gosh: line 3: return: can only `return' from a function or sourced script\n"},
		{"trap 'echo $LINENO usr1' USR1\n\nkill -USR1 $$", "1 usr1\n"},
	},
	"assignments alone before their redirections": {
		{"FOO=$(echo foo >&2) 2>/dev/null; echo \"[$FOO]\"", "foo\n[]\n"},
		{"x=$(echo a; exit 3) >/dev/null; echo $? $x", "3 a\n"},
		{"readonly r=1; r=2 >/dev/null; echo no\necho $?", "gosh: line 1: r: readonly variable\n1\n"},
	},
	"arithmetic errors name the blanks before the closing token": {
		{"echo $(( 42 / 0 ))\necho $[ 1 / 0 ]\nx=0; (( 1 / x  )); echo $?", "gosh: line 1: 42 / 0 : division by 0 (error token is \"0 \")\ngosh: line 2: 1 / 0 : division by 0 (error token is \"0 \")\ngosh: line 3: ((: 1 / x  : division by 0 (error token is \"x  \")\n1\n"},
		{"echo $(( 1 + 083 ))", "gosh: line 1: 1 + 083: value too great for base (error token is \"083\")\n"},
	},
	"a read-only assignment under set -e": {
		{"readonly r=1\n(set -e; r=2\necho not); echo $?; r=3\necho next $?", "gosh: line 2: r: readonly variable\n1\ngosh: line 3: r: readonly variable\nnext 1\n"},
	},
	"a function name that is not a word alone": {
		{"$foo-bar() { echo no; }; echo $?\nx=f; $x() { :; }\n\"q\"() { :; }; type q", "gosh: line 1: `$foo-bar': not a valid identifier\n1\ngosh: line 2: `$x': not a valid identifier\ngosh: line 3: `\"q\"': not a valid identifier\ngosh: line 3: type: q: not found\n"},
		{"foo-bar() { echo ok; }; foo-bar", "ok\n"},
	},
	"arithmetic read again from its words' text": {
		{"x='1 + 2'; echo $(( $x * 3 )) $(( \"$x\" * 3 )) $(( \"1+2\" * 3 ))", "7 7 7\n"},
		{"echo $(( '1' + 2 )); echo $?\nfor ((i = '3'; i < 5; ++i)); do echo $i; done; echo $?\nfor ((i = $\"3\"; i < 5; ++i)); do echo $i; done", "gosh: line 1: '1' + 2 : syntax error: operand expected (error token is \"'1' + 2 \")\ngosh: line 2: ((: i = '3': syntax error: operand expected (error token is \"'3'\")\n1\n3\n4\n"},
		{"declare -A A; A['x']=42; (( x = A['x'] )); let y=' 3'; a=(5 6); i=1; echo $x $y $(( a[$i] + a[i-1] ))", "42 3 11\n"},
	},
	"empty arithmetic": {
		{"(( )); echo $? $(( )) $((  ))", "1 0 0\n"},
		{"a=(a b c); x=abc; echo ${a[@]: } [${a[@]: : }] [${x:1:}] [${x:: }]", "a b c [] [] []\n"},
		{"a=(1 2); a[]=3; echo no\necho $? ${a[@]}", "gosh: line 1: a[]: bad array subscript\n1 1 2\n"},
	},
	"[[ ]] as bash 5.2 parses it": {
		{"[[ '' && x || y ]]; echo $?; [[ x || '' && '' ]]; echo $?", "0\n0\n"},
		{"[[ ! a && '' ]]; echo $?; [[ ! a == b && x ]]; echo $?; [[ ! ! a && b ]]; echo $?", "1\n0\n0\n"},
		{"[[ (a) && ! (b == c) ]]; echo $?", "0\n"},
		{"[[ !(a == a) ]]; echo $?; x=; [[ !($x) && 1 ]]; echo $?; shopt -s extglob; [[ x == !(y) ]]; echo $?", "1\n0\n0\n"},
	},
	"tildes as bash expands them": {
		{"HOME=/h; x=~:${u-~:~}; echo $x; x=a:${u-b:~}; echo $x; echo ${u-~:~} ~:x \"${u-~}\"", "/h:/h:/h\na:b:/h\n/h:~ /h:x ~\n"},
		{"HOME=/h; x=~root:~; [[ $x == \"$(echo ~root):/h\" ]] && echo same; y=~nosuchuser-x:~; echo $y", "same\n~nosuchuser-x:/h\n"},
		{"HOME=/h; b='c=~/src' d='e=1\\2'; readonly \"$b\"; declare $d; echo \"$c $e\"", "~/src 1\\2\n"},
		{"cd /; OLDPWD=/o; echo ~+ ~- ~-/x; y=~-:~+; echo $y; unset OLDPWD; echo ~-", "/ /o /o/x\n/o:/\n~-\n"},
	},
	"!(…) anywhere in a pattern": {
		{"shopt -s extglob; for w in ab bb ba cc a.md a.txt; do [[ $w == !(b)@(b|c) ]] && echo $w; done", "ab\ncc\n"},
		{"shopt -s extglob; for w in a.md a.txt .md x.MD; do case $w in *.!(md)) echo $w;; esac; done", "a.txt\nx.MD\n"},
		{"shopt -s extglob; for w in ab ac az a; do [[ $w == a@(!(c|d)) ]] && echo $w; done; [[ ab == a!(@(ab|b*)) ]] || echo no", "ab\naz\na\nno\n"},
		{"shopt -s extglob nocasematch; [[ X.MD == *.!(md) ]] || echo no; [[ 'a|b' == !(a)\\|* ]] || echo no2; [[ é1 == ?!([a-z]) ]] && echo yes", "no\nno2\nyes\n"},
		{"shopt -s extglob; [[ '' == @() ]] && echo empty; [[ x == @() ]] || echo not; [[ aaa == +(a)!(b) ]] && echo plus", "empty\nnot\nplus\n"},
		{"shopt -s extglob; s=$(printf '%0300d' 0); [[ $s == *!(x)*!(y)*1 ]] || echo long", "long\n"},
	},
	"usage lines of the declaration builtins": {
		{"typeset -@ x; echo $?; export -@; readonly -@", "gosh: line 1: typeset: -@: invalid option\ntypeset: usage: typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]\n2\ngosh: line 1: export: -@: invalid option\nexport: usage: export [-fn] [name[=value] ...] or export -p\ngosh: line 1: readonly: -@: invalid option\nreadonly: usage: readonly [-aAf] [name[=value] ...] or readonly -p\n"},
	},
	"a variable's value that is more than one expression": {
		{"x='1 3'; (( x == 1 )); echo $?; a=('1 3' 5); (( a == 5 )); echo $?; y='2 * 3'; echo $((y))", "gosh: line 1: ((: 1 3: syntax error in expression (error token is \"3\")\n1\ngosh: line 1: ((: 1 3: syntax error in expression (error token is \"3\")\n1\n6\n"},
	},
	"=~ as POSIX regcomp and regexec": {
		{"[[ { =~ { ]]; echo $?; [[ a{ =~ a{ ]]; echo $?; [[ a =~ (a|{) ]]; echo $?", "2\n2\n2\n"},
		{"[[ xyz =~ (x|xy) ]]; echo ${BASH_REMATCH[@]}; [[ abcd =~ (a|ab)(c|bcd) ]]; echo ${BASH_REMATCH[@]}", "xy xy\nabcd a bcd\n"},
		{"[[ aa =~ ^a{2}$ ]]; echo $?; [[ '{' =~ [{] ]]; echo $?; [[ 'a{' =~ a\\{ ]]; echo $?; [[ 'a{' =~ 'a{' ]]; echo $?", "0\n0\n0\n0\n"},
	},
	"array slices and list defaults as bash 5.2": {
		{"d=('1 2' 3); printf '<%s>' \"${u[@]:-${d[@]}}\" \"${u:-\"${d[@]}\"}\"; echo", "<1 2><3><1 2><3>\n"},
		{"set -- 'a b' c; printf '<%s>' \"${1:+$@}\"; echo", "<a b><c>\n"},
		{"a=(1 2 3 4 5); echo \"${a[@]: 1: -3}\"; echo no\necho $?", "gosh: line 1:  -3: substring expression < 0\n1\n"},
		{"x=abcdef; echo ${x:4:-2}x; echo ${x:4:-3}; echo no", "x\ngosh: line 1: -3: substring expression < 0\n"},
		{"declare -A A=([k]=v); A[j]=w; echo ${A[@]:0:1} ${A[@]:1:1} ${A[@]:2} ${A[@]: -1} ${A[@]: -3}. ${A[@]: -4}.", "v v w w v w. .\n"},
	},
	"array subscripts evaluated as bash 5.2": {
		{"a[a[0]=1]=X; declare -p a; a[ a[0]+=1 ]+=Y; declare -p a", "declare -a a=([0]=\"1\" [1]=\"X\")\ndeclare -a a=([0]=\"2\" [1]=\"X\" [2]=\"Y\")\n"},
		{"a=([0]=1+2+3 [a[0]]=10 [a[6]]=hello); echo ${!a[@]} ${a[@]}", "0 6 10 1+2+3 10 hello\n"},
		{"a=(x y); n1=5 n2=7; a+=([0]=n1 [a[0]]=z); echo ${!a[@]}", "0 1 5\n"},
		{"s=str; s[1]=t; s[0]+=x; s[-1]+=u; echo ${s[@]}", "strx tu\n"},
		{"u[-1]=x; echo no\necho ${#u[@]}", "gosh: line 1: u[-1]: bad array subscript\n0\n"},
		{"(a[1/0]=2; echo no); echo $?; i=0; : ${u[i++]} ${#u[i++]}; echo $i; echo ${a[1/0]}; echo no\necho no", "gosh: line 1: 1 / 0: division by 0 (error token is \"0\")\n1\n1\ngosh: line 1: 1 / 0: division by 0 (error token is \"0\")\n"},
		{"a=(1); b=([1/0]=1)\necho no", "gosh: line 1: 1 / 0: division by 0 (error token is \"0\")\n"},
		{"a=(1); unset 'a[1/0]'\necho no", "gosh: line 1: 1 / 0: division by 0 (error token is \"0\")\n"},
		{"declare u; unset -v 'u[\"k\"]'; echo $?; x=1; unset 'x[1-1]'; echo ${x-gone}; declare w; unset 'w[1]'; echo $?", "0\ngone\ngosh: line 1: unset: w: not an array variable\n1\n"},
		{"a[\"1\"]=2; echo $?; a[3 + '4']=5\necho no", "0\ngosh: line 1: 3 + '4': syntax error: operand expected (error token is \"'4'\")\n"},
		{"c=(1 2); c[-1]+=z; c[-5]=q; echo no\necho ${c[@]}", "gosh: line 1: c[-5]: bad array subscript\n1 2z\n"},
	},
	"array literals read as bash 5.2": {
		{"h=100; a=([h]=1 [h]+=2); a+=([h]+=:3); echo ${!a[@]} ${a[@]}", "100 12:3\n"},
		{"declare -A A=([k]=old); A=([k]=1 [k]+=2 [j]+=x); echo ${A[k]} ${A[j]}; A+=([k]=a [k]+=b); echo ${A[k]}", "old2 x\nab\n"},
		{"a=(1 2); a[0]=(3 4); echo no\necho $? ${a[@]}", "gosh: line 1: a[0]: cannot assign list to array member\n1 1 2\n"},
		{"HOME=/h; declare -A A=([h]=~/x [j]=a:~); a=([0]=~/x); echo ${A[h]} ${A[j]} $a", "~/x a:~ /h/x\n"},
		{"a=([5]=x{1,2} y [7]={z}); declare -p a; declare -A A=([k]={a,b}); echo ${A[k]}", "declare -a a=([0]=\"[5]=x1\" [1]=\"[5]=x2\" [2]=\"y\" [7]=\"{z}\")\n{a,b}\n"},
	},
	"a declaration's value for an array as bash 5.2": {
		{"x=(1 2); declare x=9; declare -a y=5; declare -A A=([k]=v); declare A+=w; declare -p x y A", "declare -a x=([0]=\"9\" [1]=\"2\")\ndeclare -a y=([0]=\"5\")\ndeclare -A A=([0]=\"w\" [k]=\"v\" )\n"},
		{"c='y=(4 5)'; declare -a \"$c\" x='(1 2)'; z=(7); declare z='(8 9)' q='(1)'; declare -A A='([k]=v)'; declare -p x y z q A", "declare -a x=([0]=\"1\" [1]=\"2\")\ndeclare -a y=([0]=\"4\" [1]=\"5\")\ndeclare -a z=([0]=\"8\" [1]=\"9\")\ndeclare -- q=\"(1)\"\ndeclare -A A=([k]=\"v\" )\n"},
		{"x=(1 2); declare x=; declare -a w='(x'; declare -p x w", "declare -a x=([0]=\"\" [1]=\"2\")\ndeclare -a w=([0]=\"(x\")\n"},
		{"x=(1); declare -A x; echo $?; readonly -a r=(1); declare r=2; echo $?", "gosh: line 1: declare: x: cannot convert indexed to associative array\n1\ngosh: line 1: declare: r: readonly variable\n1\n"},
	},
	"read into an array's element as bash 5.2": {
		{"i=2; read 'a[1]' \"a[i]\" <<< 'x y'; declare -A A; read 'A[k]' <<< v; echo ${a[@]} ${A[k]}", "x y v\n"},
		{"read 1x <<< a; echo $?", "gosh: line 1: read: `1x': not a valid identifier\n1\n"},
	},
	"arrays before a command as bash 5.2": {
		{"a=(1 2) b=([k]=v) sh -c 'echo \"$a $b\"'; echo ${a-unset}", "(1 2) ([k]=v)\nunset\n"},
		{"a=(0 1); a[0 + 1]=x sh -c 'echo ran'; echo $? ${a[@]}", "gosh: line 1: `a[0 + 1]': not a valid identifier\nran\n0 0 1\n"},
	},
	"bad substitutions when they run": {
		{"echo ${a&}; echo same line\necho next $?", "gosh: line 1: ${a&}: bad substitution\nnext 1\n"},
		{"x=abc; echo ${#x-d}\necho ${x:}\n(echo ${#x:1}; echo no); echo $?", "gosh: line 1: ${#x-d}: bad substitution\ngosh: line 2: ${x:}: bad substitution\ngosh: line 3: ${#x:1}: bad substitution\n1\n"},
		{"x=abc; a=(1 2 3); echo \"${x: }\" \"[${x:1:}]\" ${a[@]::} ${a[@]: -1}", "abc [] 3\n"},
		{"echo \"${a:-\"${c&}\"}\"; echo no\necho ${!a&} ${x*}", "gosh: line 1: ${c&}: bad substitution\ngosh: line 2: ${!a&}: bad substitution\n"},
		{"f() { echo \"${s:1:}\" ${s: } ${x////c}; echo ${a&}; }\ndeclare -f f; s=abc x=/a; f", "f () \n{ \n    echo \"${s:1:}\" ${s: } ${x////c};\n    echo ${a&}\n}\n abc ca\ngosh: line 1: ${a&}: bad substitution\n"},
	},
	"a slash starting the pattern of ${x/pat/with}": {
		{"x=/a/b; echo ${x////-} ${x///} ${x//'/'/+} ${x/#//+} ${x///a/}", "-a-b ab +a+b /+/a/b /b\n"},
	},
	"${x@K}, ${x@A} and lists as bash 5.2": {
		{"x=x e=; echo ${x@K} ${e@K} ${u@K} ${x@k} ${x@A} ${e@A} ${u@A}; declare -r x; echo ${x@A}", "'x' '' 'x' x='x' e=''\ndeclare -r x='x'\n"},
		{"a=(x 'y z'); declare -A A=([k]=v); printf '[%s]' \"${a[@]@K}\" \"${a[@]@k}\" \"${A[@]@K}\"; echo", "[0 \"x\" 1 \"y z\"][0][x][1][y z][k \"v\" ]\n"},
		{"set -- a b; printf '[%s]' \"${@@a}\" ${@@a} \"${@@K}\"; echo", "[][]['a']['b']\n"},
		{"a=('' ''); IFS=; echo \"[${a[@]:-w}][${a[*]:-w}]\"; printf '[%s]' ${a[*]:-w} ${*:-w}; echo", "[ ][w]\n[w]\n"},
		{"set -u; (echo $u); echo $?", "gosh: line 1: u: unbound variable\n1\n"},
		{"a=(''); r='a[@]'; s='a[*]'; echo \"[${!r:-w}][${!s:+p}]\" ${!r:-u}; a=(); echo \"[${!r:-w}]\"", "[][p] u\n[w]\n"},
	},
	"the word of >& and <& made one field": {
		{"set -- 2 3; echo hi 1>& \"$@\"; echo $?; x='1 2'; echo hi >&$x; set -- 1; echo hi >& \"$@\"", "gosh: line 1: \"$@\": ambiguous redirect\n1\ngosh: line 1: $x: ambiguous redirect\nhi\n"},
	},
	"a quoted ] in a bracket expression": {
		{"p='^++--hello.,world<>[]'; echo ${p//[^'><+-.,[]']}; x='a]b'; echo ${x//[\"]\"]/-} ${x//[^\"]\"]/.}", "++--.,<>[]\na-b .].\n"},
	},
	"cdable_vars": {
		{"shopt -s cdable_vars; v=/; cd v; pwd; cd nosuch; echo $?", "/\n/\ngosh: line 1: cd: nosuch: No such file or directory\n1\n"},
	},
	"read-only variables the shell computes": {
		{"export SHELLOPTS; echo $?; set -u; env | grep ^SHELLOPTS=", "0\nSHELLOPTS=braceexpand:hashall:interactive-comments:nounset\n"},
		{"PPID=1\necho $?; UID=0 echo ran; echo $?", "gosh: line 1: PPID: readonly variable\n1\ngosh: line 2: UID: readonly variable\nran\n0\n"},
		{"export X=a; X=b env | grep -c ^X=", "1\n"},
	},
	"$LINENO in a for loop's words": {
		{"echo one\nfor x in \\\n  $LINENO z; do\n  echo $x $LINENO\ndone", "one\n2 4\nz 4\n"},
	},
	"xtrace in substitutions": {
		{"set -x; x=$(echo $(echo a)); (echo b)", "+++ echo a\n++ echo a\n+ x=a\n+ echo b\nb\n"},
		{"set -x; echo in 'a b' '{' x=1; y=; z=in; w='a b'", "+ echo in 'a b' '{' x=1\nin a b { x=1\n+ y=\n+ z=in\n+ w='a b'\n"},
	},
}

func TestPatches(t *testing.T) {
	for patch, cases := range patchCases {
		for _, c := range cases {
			f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
			if err != nil {
				t.Fatal(err)
			}
			var out concBuffer
			r, err := interp.New(interp.StdIO(nil, &out, &out))
			if err != nil {
				t.Fatal(err)
			}
			err = r.Run(context.Background(), f)
			if got := out.String(); got != c.want {
				t.Errorf("%s: %q gave %q (%v), want %q", patch, c.script, got, err, c.want)
			}
		}
	}
}

// The interpreter's own named pipes live where TempDir says, and only the
// names it made go past the open handler: a link planted at a name that
// looks like one (sh-interp-…) in the temporary directory is opened through
// the handler like any other file.
func TestOwnTemporaryNames(t *testing.T) {
	tmp := t.TempDir()
	private := filepath.Join(tmp, "private")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secret, []byte("KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var handled []string
	open := func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
		handled = append(handled, path)
		return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrPermission}
	}
	script := `echo <(true); cat < <(echo piped)
ln -s "$SECRET" "$PRIVATE/sh-interp-1"; read -r k < "$PRIVATE/sh-interp-1"; echo "read [$k]"
echo rewritten > "$PRIVATE/sh-interp-1"`
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.TempDir(private), interp.OpenHandler(open),
		interp.Env(expand.ListEnviron("SECRET="+secret, "PRIVATE="+private, "PATH="+os.Getenv("PATH"))))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	got := out.String()
	if first, _, _ := strings.Cut(got, "\n"); !strings.HasPrefix(first, private+"/sh-interp-") {
		t.Errorf("the pipe of <(true) is %q, want it in %s", first, private)
	}
	if !strings.Contains(got, "piped\n") {
		t.Errorf("cat < <(echo piped) did not read the pipe:\n%s", got)
	}
	if strings.Contains(got, "KEY") || !strings.Contains(got, "read []") {
		t.Errorf("a planted link was read past the open handler:\n%s", got)
	}
	if len(handled) != 2 || handled[0] != private+"/sh-interp-1" || handled[1] != private+"/sh-interp-1" {
		t.Errorf("the open handler saw %q, want the planted name twice", handled)
	}
	if b, _ := os.ReadFile(secret); string(b) != "KEY\n" {
		t.Errorf("the file behind the planted link changed: %q", b)
	}
}

// A script past a bound of Limits ends with a *LimitError naming the bound,
// soon and without taking the memory: each of these would grow without end.
func TestLimits(t *testing.T) {
	const mib = 1 << 20
	cases := []struct{ script, limit string }{
		{"x=a; while :; do x=$x$x; done", interp.BytesLimit},
		{`: "$(yes)"`, interp.BytesLimit},
		{`x=$(while :; do echo aaaaaaaa; done)`, interp.BytesLimit},
		{"$(yes)", interp.BytesLimit},
		{"read -r x < /dev/zero", interp.BytesLimit},
		{"yes | { mapfile a; echo never; }", interp.BytesLimit},
		{"x=aaaaaaaaaaaaaaaa; while :; do a+=(\"$x$x$x$x$x$x$x$x\"); done", interp.BytesLimit},
		{"x=$(printf '%2000000d' 1)", interp.BytesLimit},
		{"x=$(head -c 600000 /dev/zero | tr '\\0' a); y=${x//?/aaa}", interp.BytesLimit},
		{"x=$(head -c 600000 /dev/zero | tr '\\0' a); cat <<EOF\n$x$x\nEOF", interp.BytesLimit},
		{"x=$(head -c 600000 /dev/zero | tr '\\0' a); cat <<< \"$x$x\"", interp.BytesLimit},
		{"x=$(head -c 300000 /dev/zero | tr '\\0' a); echo $x $x $x $x", interp.BytesLimit},
		{"f() { f; }; f", interp.DepthLimit},
		{`x='eval "$x"'; eval "$x"`, interp.DepthLimit},
		{"f() { f | f; }; f", ""}, // depth or subshells, whichever comes first
		{"while :; do sleep 5 & done", interp.SubshellsLimit},
		{"while :; do cat < <(sleep 5); done &\nwhile :; do sleep 5 & done", interp.SubshellsLimit},
		{"while :; do (sleep 5 &); done; echo never", interp.SubshellsLimit},
		{"(x=a; while :; do x=$x$x; done); echo never", interp.BytesLimit},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
			if err != nil {
				t.Fatal(err)
			}
			var out concBuffer
			limits := &interp.Limits{Bytes: mib, Depth: 100, Subshells: 32}
			r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Bounds(limits),
				interp.Env(expand.ListEnviron("PATH="+os.Getenv("PATH"))))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = r.Run(ctx, f)
			var le *interp.LimitError
			if !errors.As(err, &le) || (c.limit != "" && le.Limit != c.limit) {
				t.Fatalf("ended with %v, want the bound of %q; output %.200q", err, c.limit, out.String())
			}
			if strings.Contains(out.String(), "never") {
				t.Fatalf("the script went on past the bound: %.200q", out.String())
			}
		})
	}
}

// A process substitution's pipe is opened only while it is the very pipe the
// interpreter made: a regular file put at its name in between (here by a
// command run between the expansion and the redirection) is not read.
func TestOwnPipeReplacedIsNotOpened(t *testing.T) {
	private := t.TempDir()
	var keep []*os.File
	t.Cleanup(func() {
		for _, f := range keep {
			f.Close()
		}
	})
	swap := func(ctx context.Context, args []string) ([]string, error) {
		pipe := args[len(args)-1]
		switch args[0] {
		case "swap":
			// The pipe made goes aside, its writer still waiting for a
			// reader, and a file takes its name.
			if err := os.Rename(pipe, pipe+".made"); err != nil {
				return nil, err
			}
			if err := os.WriteFile(pipe, []byte("KEY\n"), 0o600); err != nil {
				return nil, err
			}
		case "unblock":
			// A reader for the pipe made, so its writer is not left waiting.
			r, err := os.OpenFile(pipe+".made", os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return nil, err
			}
			keep = append(keep, r)
		default:
			return args, nil
		}
		return []string{"true"}, nil
	}
	script := `set -- <(echo piped); swap "$1"; read -r l < "$1"; echo "read [$l] $?"; unblock "$1"`
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.TempDir(private), interp.CallHandler(swap))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if got := out.String(); strings.Contains(got, "KEY") || !strings.Contains(got, "replaced") {
		t.Errorf("a file put in place of the interpreter's pipe was opened:\n%s", got)
	}
}

// The open handler is told when the file it opens is about to run as code.
func TestSourcingIsToldToTheOpenHandler(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"lib.sh": "f() { echo sourced; }\n", "data": "x\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	open := func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
		seen[filepath.Base(path)] = interp.Sourcing(ctx)
		return interp.DefaultOpenHandler()(ctx, path, flag, perm)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader("source ./lib.sh; . ./lib.sh; read -r l < data; $(< data) f"), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Dir(dir), interp.OpenHandler(open))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if !seen["lib.sh"] || seen["data"] || len(seen) != 2 {
		t.Errorf("Sourcing per opened file: %v, want lib.sh only", seen)
	}
}

// cd -P resolves symbolic links, and a relative directory is looked up in
// CDPATH, printed when found there, as in bash.
func TestCdPhysicalAndCDPATH(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"d/e", "a/sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d/e", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	script := "cd l; pwd; cd ..; cd -P l; pwd; cd ..; pwd; CDPATH=:" + dir + "/a; cd sub; pwd; cd e; echo $?"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.Dir(dir), interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	want := strings.Join([]string{dir + "/l", dir + "/d/e", dir + "/d", dir + "/a/sub", dir + "/a/sub", "gosh: line 1: cd: e: No such file or directory", "1", ""}, "\n")
	if got := out.String(); got != want {
		t.Errorf("%s\ngave %q\nwant %q", script, got, want)
	}
}

// GLOBIGNORE drops the matches of its patterns from a glob's (each matched
// against the whole path, `*` not crossing a slash), turns dotglob on and
// always drops `.` and `..`; a glob left with nothing stays as written.
func TestGlobIgnore(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"one.md", "one.txt", ".env", "foo/two.md", "foo/two.txt", "image.jpeg"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ script, want string }{
		{"GLOBIGNORE=*.txt; echo *.* foo/*.*", ".env image.jpeg one.md foo/two.md foo/two.txt\n"},
		{"GLOBIGNORE=foo/*:*.md; echo * foo/*", ".env foo image.jpeg one.txt foo/*\n"},
		{"GLOBIGNORE=*; echo *", "*\n"},
		{"shopt -u globskipdots; echo .*; GLOBIGNORE=x; echo .*; shopt -s globskipdots; GLOBIGNORE=; echo .*", ". .. .env\n.env\n.env\n"},
		{"GLOBIGNORE=[[:alpha:]]*.md:foo/*; echo * foo/*", ".env foo image.jpeg one.txt foo/*\n"},
		{"GLOBIGNORE=*.txt; echo .*", ".env\n"},
		{"GLOBIGNORE=*.txt; GLOBIGNORE=; echo *.txt .*", "one.txt .env\n"},
		{"GLOBIGNORE=*; shopt -s nullglob; echo x *", "x\n"},
		{"shopt -s extglob; GLOBIGNORE='@(one|image).*'; echo *", ".env foo\n"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.Dir(dir), interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if got := out.String(); got != c.want {
			t.Errorf("%s\ngave %q\nwant %q", c.script, got, c.want)
		}
	}
}

// An extended pattern's text is a word when globbing too: its expansions
// are expanded, its quoted parts and spaces match as they are.
func TestExtGlobWords(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"_One", "_OneTwo", "_Three", "a b", "__|", "foo"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ script, want string }{
		{"shopt -s extglob\nt=Two; echo _+(One|$t)", "_One _OneTwo\n"},
		{"shopt -s extglob\nprintf '[%s]' @(a b|foo) @('__|'|x) @(__\\||y); echo", "[a b][foo][__|][__|]\n"},
		{"shopt -s extglob\necho @(nope|'*')", "@(nope|*)\n"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.Dir(dir), interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if got := out.String(); got != c.want {
			t.Errorf("%s\ngave %q\nwant %q", c.script, got, c.want)
		}
	}
}

// RunBeforeSyntaxError runs the statements before a syntax error, then
// prints the message and exits with status 2 before the EXIT trap runs, as
// bash does; statements that exit first never reach it. After an error
// inside `[[ ]]`, bash keeps the last command's status.
func TestRunBeforeSyntaxError(t *testing.T) {
	const msg = "gosh: -c: line 3: syntax error near unexpected token `fi'\n"
	for _, c := range []struct {
		script, want string
		keepStatus   bool
		status       int
		reached      bool
	}{
		{"trap 'echo bye $?' EXIT\necho a\n", "a\n" + msg + "bye 2\n", false, 2, true},
		{"echo a; exit 3\n", "a\n", false, 3, false},
		{"set -e; false; echo no\n", "", false, 1, false},
		{"trap 'echo bye $?' EXIT\n(exit 3)\n", msg + "bye 3\n", true, 3, true},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		reached, err := r.RunBeforeSyntaxError(context.Background(), f, msg, c.keepStatus)
		var status interp.ExitStatus
		errors.As(err, &status)
		if out.String() != c.want || int(status) != c.status || reached != c.reached || !r.Exited() {
			t.Errorf("%q: printed %q, status %d, reached %v, exited %v; want %q, %d, %v", c.script, out.String(), status, reached, r.Exited(), c.want, c.status, c.reached)
		}
	}
}

// A parse error names the token the parser stood at, as bash's
// "syntax error near unexpected token" does, and a function body must be a
// compound command.
func TestParseErrorToken(t *testing.T) {
	for in, want := range map[string]string{
		"echo a\necho b; fi":                     "fi 2:9",
		"if true; then\nfi":                      "fi 2:1",
		"echo hi; for\n":                         "newline 1:10",
		"echo a(b)":                              "( 1:7",
		"f() echo hi":                            "echo 1:5",
		"if echo then\n  echo\nelse\n  echo\nfi": "else 3:1",
		"if true; then\n":                        " 1:10",
	} {
		_, err := syntax.NewParser().Parse(strings.NewReader(in), "")
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: %v, want a parse error", in, err)
		}
		if got := pe.Token + " " + pe.TokenPos.String(); got != want {
			t.Errorf("%q: token %q, want %q", in, got, want)
		}
	}
}

// An error inside [[ ]] carries bash's own messages for it, one more for
// each ( it is inside, and none where bash prints none.
func TestCondParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"[[ ]]":             "",
		"[[ ! ]]":           "",
		"[[ a && ]]":        "",
		"[[ ) ]]":           "1:4 unexpected token `)' in conditional command",
		"[[ && ]]":          "1:4 unexpected token `&&' in conditional command",
		"[[ a $op a ]]":     "1:6 conditional binary operator expected",
		"[[ a 3< b ]]":      "1:6 conditional binary operator expected",
		"[[ a ; ]]":         "1:6 unexpected token `;', conditional binary operator expected",
		"[[ -f < ]]":        "1:7 unexpected argument `<' to conditional unary operator",
		"[[ -z ]]":          "1:7 unexpected argument `]]' to conditional unary operator",
		"[[ a == ]]":        "1:9 unexpected argument `]]' to conditional binary operator",
		"[[ -z '>' -- ]]":   "1:1 syntax error in conditional expression",
		"[[ a =~ c a ]]":    "1:1 syntax error in conditional expression",
		"[[ (a) < b ]]":     "1:1 syntax error in conditional expression: unexpected token `<'",
		"[[ x =~ ; ]]":      "1:9 syntax error in conditional expression: unexpected token `;'",
		"[[ ( a ]]":         "1:4 unexpected token `]]', expected `)'",
		"[[ ( ( a b ) ) ]]": "1:10 conditional binary operator expected|1:6 expected `)'|1:4 expected `)'",
		"[[ ( ( a ) b ) ]]": "1:4 expected `)'",
	} {
		_, err := syntax.NewParser().Parse(strings.NewReader(in+"\n"), "")
		var pe syntax.ParseError
		if !errors.As(err, &pe) || !pe.Cond {
			t.Errorf("%q: %#v, want an error inside [[ ]]", in, err)
			continue
		}
		var msgs []string
		for _, m := range pe.CondMsgs {
			msgs = append(msgs, m.Pos.String()+" "+m.Text)
		}
		if got := strings.Join(msgs, "|"); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// (( and $(( are arithmetic only when the parenthesis that closes the second
// ( is followed by another, as bash reads them; otherwise they are a
// subshell in a subshell, also when the closing is past the parser's
// buffer.
func TestDblParenAsBashReadsIt(t *testing.T) {
	long := strings.Repeat(" b", 2000)
	for script, want := range map[string]string{
		"((echo a) || (echo b))":                    "a\n",
		"echo $((echo c) )":                         "c\n",
		"(( x = (1 + 2) * 3 )); echo $x $(( (x) ))": "9 9\n",
		"((echo a" + long + ")\ntrue)":              "a" + long + "\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatalf("%.40q: %v", script, err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%.40q printed %.60q, want %.60q", script, out.String(), want)
		}
	}
}

// unset of a read-only variable, shift's errors and a for loop over an
// invalid name are bash's: a usage error of shift, a special builtin, ends
// the shell.
func TestUnsetAndShiftAsBash(t *testing.T) {
	for script, want := range map[string]string{
		"readonly x=1; unset x; echo $?":                   "gosh: line 1: unset: x: cannot unset: readonly variable\n1\n",
		"set -- a; shift 3; echo $? $#; shift -1; echo $?": "1 1\ngosh: line 1: shift: -1: shift count out of range\n1\n",
		"shift x; echo $?":                                 "gosh: line 1: shift: x: numeric argument required\n1\n",
		"for i.j in a; do\necho no\ndone; echo $?":         "gosh: line 3: `i.j': not a valid identifier\n1\n",
		"readonly r=1\nr=2; echo no\necho $?":              "gosh: line 2: r: readonly variable\n1\n",
		"shift 1 2; echo no":                               "gosh: line 1: shift: too many arguments\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// An error in a background command starts with the script's $0, as the
// script's own errors do.
func TestBackgroundErrorNamesTheScript(t *testing.T) {
	f, err := syntax.NewParser().Parse(strings.NewReader("shift 1 2 &\nwait"), "bash")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if want := "bash: line 1: shift: too many arguments\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// AliasLine expands the aliases at the start of a line bash reads, as the
// lines run so far defined them: the first word, an alias's own first
// word, and the word after an alias ending in a blank.
func TestAliasLine(t *testing.T) {
	r, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader("shopt -s expand_aliases\nalias LEFT='{' FOR1='for ' FOR2='FOR1 ' eye='i ' IN='in ' e=''"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"LEFT echo one; }":            "{ echo one; }",
		"FOR2 eye IN 1 2; do :; done": "for   i  in  1 2; do :; done",
		"e (( x = 0 ))":               " (( x = 0 ))",
		"echo LEFT":                   "",
	} {
		got, ok := r.AliasLine(line)
		if !ok && want != "" || ok && got != want {
			t.Errorf("AliasLine(%q) = %q, %v; want %q", line, got, ok, want)
		}
	}
}

// Patterns over a tree of files match as bash's do: `**/**` lists each
// path once, as `**` does, and `!(…)` may stand anywhere in a pattern.
func TestGlobInTree(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"leaf.md", "c/leaf.md", "c/subdir/leaf.md"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ script, want string }{
		{"shopt -s globstar; echo **/**/*.*; echo c/**/**/", "c/leaf.md c/subdir/leaf.md leaf.md\nc/ c/subdir/\n"},
		{"shopt -s globstar; echo **/*/**/*.md", "c/leaf.md c/subdir/leaf.md c/subdir/leaf.md\n"},
		{"shopt -s extglob; echo *.!(md) c/!(l*) !(c|*.md) c/*!(f).md", "*.!(md) c/subdir !(c|*.md) c/leaf.md\n"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.Dir(dir), interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if got := out.String(); got != c.want {
			t.Errorf("%s\ngave %q\nwant %q", c.script, got, c.want)
		}
	}
}

// An element that appends, [k]+=v, prints as it was written.
func TestArrayElemAppendPrints(t *testing.T) {
	const script = "a=([k]+=v [j]=w x)\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	if err := syntax.NewPrinter().Print(&out, f); err != nil {
		t.Fatal(err)
	}
	if out.String() != script {
		t.Errorf("printed %q, want %q", out.String(), script)
	}
}

// An error inside a function starts with the file that defined it, and one
// in a sourced file with that file, as bash's do (its BASH_SOURCE): the main
// script's functions are named by MainSource (`environment` for `bash -c`).
func TestErrorsNameTheirSource(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.sh")
	if err := os.WriteFile(lib, []byte("g() { unset ro; }\nunset ro\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "readonly ro=1\nf() { unset ro; (unset ro); }; f\nsource " + lib + "\ng\nh() { g; }; h\nunset ro\n"
	for mainSource, want := range map[string]string{
		"environment": "environment: line 2: unset: ro: cannot unset: readonly variable\n" +
			"environment: line 2: unset: ro: cannot unset: readonly variable\n" +
			lib + ": line 2: unset: ro: cannot unset: readonly variable\n" +
			lib + ": line 1: unset: ro: cannot unset: readonly variable\n" +
			lib + ": line 1: unset: ro: cannot unset: readonly variable\n" +
			"bash: line 6: unset: ro: cannot unset: readonly variable\n",
		"": "bash: line 2: unset: ro: cannot unset: readonly variable\n" +
			"bash: line 2: unset: ro: cannot unset: readonly variable\n" +
			lib + ": line 2: unset: ro: cannot unset: readonly variable\n" +
			lib + ": line 1: unset: ro: cannot unset: readonly variable\n" +
			lib + ": line 1: unset: ro: cannot unset: readonly variable\n" +
			"bash: line 6: unset: ro: cannot unset: readonly variable\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "bash")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out), interp.MainSource(mainSource))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("MainSource(%q) printed\n%s\nwant\n%s", mainSource, out.String(), want)
		}
	}
}

// declare alone lists as set does (a nameref as the name it holds), a
// function may be named by any word, and BASH_EXECUTION_STRING is the
// script given to ExecutionString, not exported.
func TestDeclareListsAsBash(t *testing.T) {
	for script, want := range map[string][]string{
		"ref=x; declare -n nr=ref; f() { :; }; declare": {"\nnr=ref\n", "\nref=x\n", "\nf () \n{ \n    :\n}\n"},
		"ble/foo() { :; }; declare -F ble/foo; echo $?": {"ble/foo\n0\n"},
		"declare -F 'no such'; echo $?":                 {"1\n"},
		"declare -p BASH_EXECUTION_STRING":              {"declare -- BASH_EXECUTION_STRING=\"declare -p BASH_EXECUTION_STRING\"\n"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "bash")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out), interp.ExecutionString(script))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s\nprinted %q\nwant it to hold %q", script, out.String(), w)
			}
		}
	}
}

// A declaration builtin expands all its words before it assigns, and unset
// or export in a function reach a local of its caller, as in bash.
func TestDeclarationScopesAsBash(t *testing.T) {
	for script, want := range map[string]string{
		"a=0; f() { local a=1 b=$a; echo $b; }; f":                              "0\n",
		"export c=1 d=$c; echo \"[$d] $_\"":                                     "[] d=\n",
		"declare -i n=1+2; echo $n $_":                                          "3 n=1+2\n",
		"h() { unset x; }; g() { local x=2; h; echo $x; }; x=g; g":              "g\n",
		"g() { local x=2; unset x; echo ${x-unset}; unset x; echo $x; }; g":     "unset\n\n",
		"h() { unset x; }; g() { local -r x=2; h; echo $x; }; g":                "gosh: line 1: unset: x: cannot unset: readonly variable\n2\n",
		"inr() { export o; }; out() { local o=X; inr; declare -p o; }; out":     "declare -x o=\"X\"\n",
		"inr() { readonly o; }; out() { local o=X; inr; }; out; echo ${o-none}": "none\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// eval counts the lines of its code from the eval command's line, in
// errors and $LINENO, as bash does.
func TestEvalLinesCountFromItsLine(t *testing.T) {
	script := "readonly r=1\n\neval 'echo $LINENO; unset r'\nf() {\n  eval 'unset r'\n}\nf\n"
	want := "3\ngosh: line 3: unset: r: cannot unset: readonly variable\ngosh: line 5: unset: r: cannot unset: readonly variable\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// "${a[@]:-x}" is null only when a's elements joined with spaces are, as in
// bash: (” ”) is two empty fields, (”) is the word.
func TestListDefaultIsNullAsBash(t *testing.T) {
	for script, want := range map[string]string{
		`a=('' ''); printf '<%s>' "${a[@]:-set}" "[${a[@]:-set}]"`:     "<><><[><]>",
		`a=(''); printf '<%s>' "${a[@]:-set}" "${a[@]:+alt}"`:          "<set><>",
		`a=('' ''); r='a[@]'; printf '<%s>' "${!r:-set}" "${a[@]:+x}"`: "<><><x>",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// set -o posix is bash's POSIX mode: a special builtin is found before a
// function, cannot name one, keeps the assignments before it (unless it
// unset them), and shift reports a count out of range.
func TestPosixModeAsBash(t *testing.T) {
	for script, want := range map[string]string{
		"set -o posix; echo $SHELLOPTS; set +o posix; echo $SHELLOPTS":      "braceexpand:hashall:interactive-comments:posix\nbraceexpand:hashall:interactive-comments\n",
		"eval() { echo func; }; eval 'echo a'; set -o posix; eval 'echo b'": "func\nb\n",
		"set -o posix; f() { :; }\neval() {\n:\n}\necho no":                 "gosh: line 4: `eval': is a special builtin\n",
		"set -o posix; a=1 :; b=2 true; c=3 export d=4; echo $a.$b.$c":      "1..3\n",
		"set -o posix; x=42; x=tmp unset x; echo $x":                        "42\n",
		"set -o posix; set -- a; shift 2; echo $?":                          "gosh: line 1: shift: 2: shift count out of range\n1\n",
		"set -- a; shift 2; echo $?; a=1 :; echo ${a-unset}":                "1\nunset\n",
		"echo ${BASH_VERSION%%.*}":                                          "5\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// With shopt -s lastpipe the last command of a pipeline runs in the shell
// itself, as in bash without job control: what it sets stays.
func TestLastPipeRunsInTheShell(t *testing.T) {
	for script, want := range map[string]string{
		"shopt -s lastpipe; echo x | read v; echo $v; printf 'a\\nb\\n' | mapfile m; echo ${#m[@]}": "x\n2\n",
		"echo x | read v; echo \"[$v]\"":                                                "[]\n",
		"shopt -s lastpipe; false | true; echo ${PIPESTATUS[@]}; read w; echo \"[$w]\"": "1 0\n[]\n",
		"shopt -s lastpipe; echo hi | exit 3; echo not":                                 "",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(strings.NewReader(""), &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		err = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
		if strings.Contains(script, "exit 3") && err == nil {
			t.Errorf("%s: the shell went on; want exit status 3", script)
		}
	}
}

// BASH_SOURCE and BASH_LINENO list the running frames, the innermost
// first, as bash's: a function's defining file and the line it was called
// on; a script file run as `bash path` ends them with path and 0.
func TestSourceStackAsBash(t *testing.T) {
	script := "f() {\n  echo \"${BASH_SOURCE[*]}|${BASH_LINENO[*]}|${FUNCNAME[*]}\"\n}\necho \"${BASH_SOURCE[*]}|${BASH_LINENO[*]}\"\nf\ng() { f; }; g\n"
	for opt, want := range map[string]string{
		"main": "|\nmain|5|f\nmain main|6 6|f g\n",
		"s.sh": "s.sh|0\ns.sh s.sh|5 0|f main\ns.sh s.sh s.sh|6 6 0|f g main\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "bash")
		if err != nil {
			t.Fatal(err)
		}
		given := interp.MainSource(opt)
		if opt != "main" {
			given = interp.ScriptFile(opt)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out), given)
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s: printed %q, want %q", opt, out.String(), want)
		}
	}
}

// hash keeps bash's table of the programs run by name: their path and hits,
// `hash NAME` adds one without a hit, -r and a new PATH empty it.
func TestHashTableAsBash(t *testing.T) {
	for script, want := range map[string]string{
		"hash; true":                                               "hash: hash table empty\n",
		"hash sh; hash | sed 1d | tr -d ' \\t'":                    "0/bin/sh\n",
		"hash sh; hash -r; hash":                                   "hash: hash table empty\n",
		"hash sh; PATH=$PATH; hash":                                "hash: hash table empty\n",
		"hash nosuch_prog; echo $?":                                "gosh: line 1: hash: nosuch_prog: not found\n1\n",
		"hash -p /x/y y; hash -t y; hash -d y; hash -d y; echo $?": "/x/y\ngosh: line 1: hash: y: not found\n1\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Env(expand.ListEnviron("PATH=/bin")))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// A function's assignments before it are a scope of their own, as bash's:
// unset in the function shows the caller's value; and a declaration
// builtin after assignments takes its assignment words whole.
func TestTempScopeAndDeclAfterAssigns(t *testing.T) {
	for script, want := range map[string]string{
		`x=g; f() { echo $x; unset x; echo $x; }; x=tmp f; echo $x`:              "tmp\ng\ng\n",
		`x=g; f() { x=new; y=2; }; x=tmp f; echo $x $y`:                          "g 2\n",
		`w="a  b"; FOO=1 readonly v=$w; echo "$v"; FOO=1 export e=$w; echo "$e"`: "a  b\na  b\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// A scalar is element zero to unset: a subscript that is 0 as arithmetic
// unsets it, any other is `not an array variable`, as in bash.
func TestUnsetScalarElementAsBash(t *testing.T) {
	script := `s=1; unset -v 's["key"]'; echo $? ${s-unset}; t=1; unset 't[k]'; echo ${t-unset}; u=1; unset 'u[1]'; echo $? $u`
	want := "0 unset\nunset\ngosh: line 1: unset: u: not an array variable\n1 1\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// A sourced file that does not parse is reported as bash reports it: the
// file's name as given, the line, bash's words; source fails with status 2.
func TestSourceSyntaxErrorAsBash(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "lib.sh")
	if err := os.WriteFile(lib, []byte("true\n\necho >\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(". "+lib+"; echo $?"), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	want := lib + ": line 3: syntax error near unexpected token `newline'\n" + lib + ": line 3: `echo >'\n2\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// A builtin whose output cannot be written fails as bash's does: `echo:
// write error: No space left on device`, status 1; a closed pipe, which
// ends bash by SIGPIPE without a word, is not reported.
func TestBuiltinWriteErrorAsBash(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	defer pw.Close()
	for _, c := range []struct {
		stdout *os.File
		want   string
	}{
		{full, "gosh: line 1: echo: write error: No space left on device\ngosh: line 2: printf: write error: No space left on device\nstatus=1\n"},
		{pw, "status=0\n"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("echo hi\nprintf '%s\\n' hi; echo status=$? >&2"), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, c.stdout, &out))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != c.want {
			t.Errorf("to %s printed %q, want %q", c.stdout.Name(), out.String(), c.want)
		}
	}
}

// What a >(…) writes is all written when the script's run returns, also
// for one reading a stream the script opened with exec, as bash's caller
// reads it to its end; a <(…) or a >(…) no one opened does not hold the run.
// <(<file) is the file's text, as $(<file) is.
func TestProcSubstFinishesWithTheScript(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "foo"), []byte("FOO\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for script, want := range map[string]string{
		"{ echo 1; echo 2; } > >(while read l; do echo \"got $l\"; done)":  "got 1\ngot 2\n",
		"exec > >(while read l; do echo \"[$l]\"; done); echo hi; echo ho": "[hi]\n[ho]\n",
		"exec 3> >(while read l; do echo \"3:$l\"; done); echo x >&3":      "3:x\n",
		": >(while read l; do echo no; done) <(echo no); echo end":         "end\n",
		"while read l; do echo \"<$l>\"; done < <(<foo)":                   "<FOO>\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Dir(dir))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%s\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// A signal whose default action is to ignore it (URG, WINCH, CHLD, CONT)
// leaves a background job running, as bash, which resets a subshell's
// traps, leaves it.
func TestIgnoredSignalLeavesAJobRunning(t *testing.T) {
	script := "{ until [ -e go ]; do :; done; echo end; } &\nkill -URG $!; kill -WINCH $!; : > go; wait; echo $?"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Dir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if want := "end\n0\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// A shell the script starts (here by an exec handler, as tandem's `sh -c`)
// that signals $$ signals the script: the script's trap runs once the
// command is done, and neither its status nor the trap's reach $?, as in
// bash's `sh -c "kill -USR1 $$"`. A signal the script does not trap ends it.
func TestSignalFromAStartedShell(t *testing.T) {
	for script, want := range map[string]string{
		"trap 'echo \"USR1 trap status=$?\"; (exit 42)' USR1\necho before=$?\nchild\necho after=$?": "before=0\nUSR1 trap status=0\nafter=0\n",
		"child\necho never": "",
	} {
		var parent *interp.Runner
		exec := func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				hc := interp.HandlerCtx(ctx)
				f, err := syntax.NewParser().Parse(strings.NewReader("kill -USR1 $$"), "")
				if err != nil {
					return err
				}
				child, err := interp.New(interp.StdIO(nil, hc.Stdout, hc.Stderr), interp.SignalsTo(parent))
				if err != nil {
					return err
				}
				return child.Run(ctx, f)
			}
		}
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		parent, err = interp.New(interp.StdIO(nil, &out, &out), interp.ExecHandlers(exec))
		if err != nil {
			t.Fatal(err)
		}
		err = parent.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%q printed %q, want %q", script, out.String(), want)
		}
		if want == "" && err != interp.ExitStatus(138) {
			t.Errorf("%q ended with %v, want exit status 138", script, err)
		}
	}
}

// Errors name the file whose code runs, as bash's do: a sourced file's
// name as given, and in a bash -c script (MainSource) `environment` for
// its functions' code, also eval's inside them.
func TestErrorsNameTheCodesFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("g() { readonly q=1; q=2; }\nreadonly p=1; p=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "f() { readonly r=1; r=2; }\nf\nf() {\n eval 'echo >'\n}\nf\n. ./lib.sh\ng\nreadonly s=1; s=2"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "bash")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Dir(dir), interp.MainSource("environment"))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	want := "environment: line 1: r: readonly variable\n" +
		"environment: eval: line 4: syntax error near unexpected token `newline'\nenvironment: eval: line 4: `echo >'\n" +
		"./lib.sh: line 2: p: readonly variable\n./lib.sh: line 1: q: readonly variable\nbash: line 9: s: readonly variable\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}

// set -v prints each line of the script as the shell reads it: a line
// whole before its first command runs, a compound command's lines before
// it runs, comments and blank lines with the command after them.
func TestVerboseEchoesReadLines(t *testing.T) {
	script := "echo a; set -v; echo b\nif true; then\n  echo c\nfi\n# note\n\ncat <<E\nd\nE\nset +v\necho e\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.ScriptText(script))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	want := "a\nb\nif true; then\n  echo c\nfi\nc\n# note\n\ncat <<E\nd\nE\nd\nset +v\ne\n"
	if out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// set -v prints the lines of code the shell is given to run as it reads
// them too, as bash does: eval's string, a sourced file (up to where a
// return or set +v in it stops), a trap's code; each just before the
// command it ends.
func TestVerboseEchoesWhatEvalSourceAndTrapsRead(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"last.sh": "echo x\necho y", // no newline at its end
		"off.sh":  "echo in\nset +v\necho two\n",
		"ret.sh":  "echo r1\nreturn 3\necho r2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for script, want := range map[string]string{
		"set -v\neval $'echo a\\necho b'\necho end\n":                      "eval $'echo a\\necho b'\necho a\na\necho b\nb\necho end\nend\n",
		"set -v\neval \"echo a;\n echo b\" ; echo c\n":                     "eval \"echo a;\n echo b\" ; echo c\necho a;\na\n echo b\nb\nc\n",
		"set -v\n. ./last.sh\n. ./off.sh\necho end\n":                      ". ./last.sh\necho x\nx\necho y\ny\n. ./off.sh\necho in\nin\nset +v\ntwo\nend\n",
		"set -v\n. ./ret.sh\necho $?\n":                                    ". ./ret.sh\necho r1\nr1\nreturn 3\necho $?\n3\n",
		"set -v\nfor i in 1 2; do eval $'echo a\\nbreak\\necho b'; done\n": "for i in 1 2; do eval $'echo a\\nbreak\\necho b'; done\necho a\na\nbreak\necho b\n",
		"set -v\ntrap \"echo e\" ERR\nfalse\necho x\n":                     "trap \"echo e\" ERR\nfalse\necho e\ne\necho x\nx\n",
		"set -v\ntrap \"echo t\" EXIT\necho x\n":                           "trap \"echo t\" EXIT\necho x\nx\necho t\nt\n",
		"set -v\nx=$(echo sub)\necho \"$x\"\neval ''\n":                    "x=$(echo sub)\necho \"$x\"\nsub\neval ''\n",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(script), "")
		if err != nil {
			t.Fatal(err)
		}
		var out concBuffer
		r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Dir(dir), interp.ScriptText(script))
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Run(context.Background(), f)
		if out.String() != want {
			t.Errorf("%q\nprinted %q\nwant    %q", script, out.String(), want)
		}
	}
}

// A command named by Untraced runs without set -x printing it.
func TestUntracedCommand(t *testing.T) {
	f, err := syntax.NewParser().Parse(strings.NewReader("set -x; mark 1; echo a"), "")
	if err != nil {
		t.Fatal(err)
	}
	var out concBuffer
	r, err := interp.New(interp.StdIO(nil, &out, &out), interp.Untraced("mark"),
		interp.CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			if args[0] == "mark" {
				return []string{"true"}, nil
			}
			return args, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if want := "+ echo a\na\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}
