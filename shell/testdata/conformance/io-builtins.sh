### printf width and precision from the format and from arguments
printf '[%6.4d][%.4x][%-6.2s][%*s][%.*s][%*.*s]\n' 42 42 spam 5 ab 1 xyz -4 3 hello
### printf zero padding, signs and the alternate form
printf '[%06d][%-05d][%+d][% d][%06s][%#o][%#x][%#X][%.0d]\n' -42 3 3 3 42 8 0 255 0
### printf unsigned, octal and hex of negative and big numbers
printf '[%u][%o][%x][%X]\n' -42 -42 $(( (1 << 63) - 1 )) 255
### printf a character's code and numbers in C's bases
printf '%d %d %X %d %d\n' \'a '"b' 0x55 055 ' +12'
### printf reports an invalid number, prints what it read, and fails
printf '[%d][%i][%d]\n' 3abc xyz 08; echo status=$?; printf '%d\n' 0x1g ' -4 '; echo status=$?
### printf out of range is a warning
printf '%d %u\n' 18446744073709551616 -18446744073709551616; echo status=$?
### printf floating point
printf '[%f][%.2f][%8.3e][%g][%G][%#g][%.0f][%#.0f]\n' 3.14159 3.14159 31415.9 0.0001 1e-5 3 2.5 3
### printf inf, nan and a partly read float
printf '[%f][%F][%5.1f]\n' inf -inf nan; printf '%f\n' 1.5x; echo status=$?
### printf %b escapes and \c
printf '[%b][%b][%b]\n' 'a\tb' '\0101\101' '\x41\u0041'; printf '%s %b %s\n' x 'y\cz' w; echo " status=$?"
### printf format escapes differ from %b
printf '\0101|\101|\x41|\q|\"|\c|\n'
### printf bad conversions stop it
printf 'a%yb\n' 1; echo status=$?; printf 'x%'; echo status=$?; printf '%5%\n'; echo status=$?
### printf reuses the format and fills missing arguments
printf '%s=%d;' a 1 b; echo; printf 'no conversion\n' extra args
### printf -v into an array element and its options
a=(x y); printf -v 'a[1]' '%s-%s' p q; printf -v'b' %05d 7; echo "${a[@]} $b"; printf -x; echo status=$?
### printf %(fmt)T with a fixed zone, width and precision
export TZ=UTC; printf '%(%Y-%m-%d %H:%M:%S)T|%10.4(%Y)T|%(%j %a %b %e %I %p %s)T\n' 1557978599 0 86400
### printf %(fmt)T reads -1 as now
export TZ=UTC; [ "$(printf '%(%s)T' -1)" -ge 1700000000 ] && echo now
### printf %q and %Q
printf '[%q][%q][%.3Q]\n' 'a b' '' 'x y z'
### echo options group and stop at the first other word
echo -ne 'a\tb|'; echo -nx z; echo -e '\0101\101\x41|\c' not shown; echo -E '\t' -; echo -- -n
### a backslash in an assignment quotes the next character
x=a\ b y=\$z w=\~ v=c\\d; echo "[$x][$y][$w][$v]"; a=([0]=p\ q); echo "[${a[0]}]"
### printf %q output read back by eval
val='"quoted" with spaces and \'; printf -v foo %q "$val"; eval "bar=$foo"; [ "$bar" = "$val" ] && echo OK
### read splits at non-whitespace IFS as bash, empty fields included
IFS='x '; echo 'a xx b' | { read -a a; echo "${#a[@]} [${a[1]}]"; }; echo 'a ax  x  ' | { read p q; echo "[$p][$q]"; }; echo xxx | { read p q; echo "[$p][$q]"; }
### read keeps escaped IFS characters and an escaped delimiter
IFS='x '; echo 'x \ ' | { read p q; echo "[$p][$q]"; }; printf 'a b\\,c d\n' | { read -d , r; echo "[$r]"; }; echo '' | { read -a e; echo ${#e[@]}; }
### read -t 0 and a timeout
read -t 0 < /dev/null; echo $?; sleep 1 | { read -t 0; echo $?; read -t 0.1 x; echo $? "[$x]"; }; read -t x y; echo $?; read -t -1 y; echo $?
### read from a directory is an error of read
mkdir -p d; read x < d; echo status=$?
### getopts reports after $0, and silent mode sets OPTARG
set -- -a -x -b; while getopts ab opt; do echo "$opt ${OPTARG-unset} $OPTIND"; done; set -- -x -b; OPTIND=1; while getopts :b: opt; do echo "$opt ${OPTARG-unset}"; done
### getopts OPTIND across scans and after --
set -- -a -- -c op; while getopts a o; do :; done; echo $OPTIND; set --; getopts a o; echo $? $OPTIND; set -- -c foo; OPTIND=1; getopts c: 'bad-'; echo $? $OPTARG $OPTIND
### $- and SHELLOPTS follow the options
echo $-; set -u -o pipefail; echo $-; echo $SHELLOPTS; set -x; echo $SHELLOPTS; set +x; [ -n "$BASHOPTS" ] && echo bashopts
### SHELLOPTS is read-only
SHELLOPTS=x; echo not reached
### set lists variables quoted to be read back
_s='[ ]' _w=$'[\t]' _q="it's" _e= _b='\ "'; _a=(1 '2 3'); declare -A _m=([k]=v); set | grep '^_' > vars; unset _s _w _q _e _b _a _m; . ./vars; declare -p _s _w _q _e _b _a _m
### set + is ignored and set - ends the options
set +; echo "[$*]"; set - +; echo "[$*]"; set + -; echo "[$*]"; set -x; set - a b; echo "$@"
### an unset variable under set -eu ends the script with status 1
set -eu; echo "[$nosuch]"; echo not reached
### xtrace quotes each word on its own
set -x; echo '' a 'b c' "it's"; f() { :; }; f x 'y z'
### shopt options of interactive shells are accepted, xpg_echo is followed
shopt -s progcomp hostcomplete checkwinsize autocd; echo $?; shopt -s xpg_echo; echo 'a\tb'; echo -E 'a\tb'; shopt -u xpg_echo; echo 'a\tb'
### NUL bytes: command substitution warns, read and mapfile drop them
s=$(printf 'a\000b'); echo ${#s}; printf '.\000.' | { read r; echo ${#r}; }; printf '.\000.\nx\n' | { mapfile m; echo ${#m[0]} ${#m[@]}; }
### mapfile from a directory is not an error
mkdir -p d; mapfile m < d; echo status=$? ${#m[@]}
