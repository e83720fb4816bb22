package interp_test

import (
	"flag"
	"os"
	"strings"
	"sync"
	"testing"
)

// upstreamChanged is the one list of upstream's cases (interp_test.go,
// handler_test.go, as mvdan.cc/sh v3.14.1 wrote them) whose output
// tandem's patches change on purpose: each case's test and input, the
// output the patched interpreter gives, and why (the patch, as the
// README's table names it). Every other upstream case must pass as
// upstream wrote it; an entry no case uses fails the run (when the whole
// package runs), so the list stays true.
var upstreamChanged = map[string]changedCase{
	"TestRunnerRun: echo $((2 ** -1)); let x=2**-1":                       {want: "gosh: line 1: 2 ** -1: exponent less than 0 (error token is \"1\")\nexit status 1", why: whyArith},
	"TestRunnerRun: x=0; echo $((1/0 && x++)); echo $x":                   {want: "gosh: line 1: 1 / 0 && x++: division by 0 (error token is \"0\")\nexit status 1", why: whyArith},
	"TestRunnerRun: test -? a":                                            {want: "gosh: line 1: test: -?: unary operator expected\nexit status 2", why: whyClassicTest},
	"TestRunnerRun: test 3 -lt":                                           {want: "gosh: line 1: test: 3: unary operator expected\nexit status 2", why: whyClassicTest},
	"TestRunnerRun: [ a -a ]":                                             {want: "gosh: line 1: [: a: unary operator expected\nexit status 2", why: whyClassicTest},
	"TestRunnerRun: shopt -s nosuchname":                                  {want: "gosh: line 1: shopt: nosuchname: invalid shell option name\nexit status 1", why: whyShopt},
	"TestRunnerRun: trap 'foobar' UNKNOWN":                                {want: "gosh: line 1: trap: UNKNOWN: invalid signal specification\nexit status 1", why: whyTrap},
	"TestRunnerRun: shopt -q":                                             {want: "", why: whyShopt},
	"TestRunnerRun: shopt -p":                                             {want: "shopt -u dotglob\nshopt -u expand_aliases\nshopt -u extglob\nshopt -u failglob\nshopt -s globskipdots\nshopt -u globstar\nshopt -u nocaseglob\nshopt -u nocasematch\nshopt -u nullglob\nshopt -u assoc_expand_once\nshopt -u autocd\nshopt -u cdable_vars\nshopt -u cdspell\nshopt -u checkhash\nshopt -u checkjobs\nshopt -s checkwinsize\nshopt -s cmdhist\nshopt -u compat31\nshopt -u compat32\nshopt -u compat40\nshopt -u compat41\nshopt -u compat42\nshopt -u compat43\nshopt -u compat44\nshopt -s complete_fullquote\nshopt -u direxpand\nshopt -u dirspell\nshopt -u execfail\nshopt -u extdebug\nshopt -s extquote\nshopt -s force_fignore\nshopt -u globasciiranges\nshopt -u gnu_errfmt\nshopt -u histappend\nshopt -u histreedit\nshopt -u histverify\nshopt -s hostcomplete\nshopt -u huponexit\nshopt -u inherit_errexit\nshopt -s interactive_comments\nshopt -u lastpipe\nshopt -u lithist\nshopt -u localvar_inherit\nshopt -u localvar_unset\nshopt -u login_shell\nshopt -u mailwarn\nshopt -u no_empty_cmd_completion\nshopt -s progcomp\nshopt -u progcomp_alias\nshopt -s promptvars\nshopt -u restricted_shell\nshopt -u shift_verbose\nshopt -s sourcepath\nshopt -u xpg_echo\n", why: whyShopt},
	"TestRunnerRun: shopt -o -s nosuchname":                               {want: "gosh: line 1: shopt: nosuchname: invalid option name\nexit status 1", why: whyShopt},
	"TestRunnerRun: shopt -s pipefail":                                    {want: "gosh: line 1: shopt: pipefail: invalid shell option name\nexit status 1", why: whyShopt},
	"TestRunnerRun: shopt -o -s extglob":                                  {want: "gosh: line 1: shopt: extglob: invalid option name\nexit status 1", why: whyShopt},
	"TestRunnerRun: shopt pipefail":                                       {want: "gosh: line 1: shopt: pipefail: invalid shell option name\nexit status 1", why: whyShopt},
	"TestRunnerRun: shopt inherit_errexit":                                {want: "inherit_errexit\toff\t(\"on\" not supported)\nexit status 1", why: whySetE},
	"TestRunnerRun: let x=3; let 3%0; ((3%0)); echo $((x%y)); let x%=0":   {want: "gosh: line 1: let: 3 % 0: division by 0 (error token is \"0\")\ngosh: line 1: ((: 3 % 0: division by 0 (error token is \"0\")\ngosh: line 1: x % y: division by 0 (error token is \"y\")\nexit status 1", why: whyArith},
	"TestRunnerRun: let x=3; let 3/0; ((3/0)); echo $((x/y)); let x/=0":   {want: "gosh: line 1: let: 3 / 0: division by 0 (error token is \"0\")\ngosh: line 1: ((: 3 / 0: division by 0 (error token is \"0\")\ngosh: line 1: x / y: division by 0 (error token is \"y\")\nexit status 1", why: whyArith},
	"TestRunnerRun: a=b b=a; echo $(($a))":                                {want: "gosh: line 1: b: expression recursion level exceeded (error token is \"a\")\nexit status 1", why: whyArithReread},
	"TestRunnerRun: cd ''":                                                {want: "", why: whyCd},
	"TestRunnerRun: for i in 1; do break a; done":                         {want: "gosh: line 1: break: a: numeric argument required\nexit status 128", why: whyLoopCount},
	"TestRunnerRun: for i in 1; do continue a; done":                      {want: "gosh: line 1: continue: a: numeric argument required\nexit status 128", why: whyLoopCount},
	"TestRunnerRun: cd a b":                                               {want: "gosh: line 1: cd: too many arguments\nexit status 1", why: whyCd},
	"TestRunnerRun: echo foo bar | tee >(sed 's/o/e/g') >/dev/null; wait": {skip: true, why: whyFlaky},
	"TestRunnerRun: read -p 'Display me as a prompt. Continue? (y/n) ' choice <<< 'y'; echo $choice": {want: "y\n", why: whyReadPrompt},
	"TestRunnerRun: read -r -p 'Prompt and raw flag together: ' a <<< '\\a\\b\\c'; echo $a":          {want: "\\a\\b\\c\n", why: whyReadPrompt},
	"TestRunnerHandlers: ExecCmdSubst":                  {want: "gosh: line 1: blocklisted: malicious\nRunner.Run error: blocklisted: malicious", why: whyPrefix},
	"TestRunnerHandlers: GlobForbid":                    {want: "gosh: line 1: blocklisted: glob\n", why: whyPrefix},
	"TestRunnerOpts: echo $@; echo $unset":              {want: "foo\ngosh: line 1: unset: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: >a && cd a":                         {want: "gosh: line 1: cd: a: Not a directory\nexit status 1", why: whyBuiltinMsg},
	"TestRunnerRun: PATH=/; type $PATH_PROG":            {want: "gosh: line 1: type: sh: not found\nexit status 1", why: whyPrefix},
	"TestRunnerRun: [":                                  {want: "gosh: line 1: [: missing `]'\nexit status 2", why: whyBuiltinMsg},
	"TestRunnerRun: [ a":                                {want: "gosh: line 1: [: missing `]'\nexit status 2", why: whyBuiltinMsg},
	"TestRunnerRun: [ a b c ]":                          {want: "gosh: line 1: [: b: binary operator expected\nexit status 2", why: whyBuiltinMsg},
	"TestRunnerRun: a=(b); echo ${a[-2]}":               {want: "gosh: line 1: a: bad array subscript\n\n", why: whyBadSubscript},
	"TestRunnerRun: a=b; a=c; echo $a; readonly a; a=d": {want: "c\ngosh: line 1: a: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: a=b; echo ${a:?err1}; a=; echo ${a:?err2}; unset a; echo ${a:?err3}": {want: "b\ngosh: line 1: a: err2\nexit status 127", why: whyUnset},
	"TestRunnerRun: a=b; echo ${a?err1}; a=; echo ${a?err2}; unset a; echo ${a?err3}":    {want: "b\n\ngosh: line 1: a: err3\nexit status 127", why: whyUnset},
	"TestRunnerRun: alias foo; alias foo=echo; alias foo; alias foo=; alias foo":         {want: "gosh: line 1: alias: foo: not found\nalias foo='echo'\nalias foo=''\n", why: whyMeta},
	"TestRunnerRun: alias interp_foo='bar baz'\ntype interp_foo":                         {want: "gosh: line 2: type: interp_foo: not found\nexit status 1", why: whyPrefix},
	"TestRunnerRun: break":                                                             {want: "gosh: line 1: break: only meaningful in a `for', `while', or `until' loop\n", why: whyBuiltinMsg},
	"TestRunnerRun: cd noexist":                                                        {want: "gosh: line 1: cd: noexist: No such file or directory\nexit status 1", why: whyBuiltinMsg},
	"TestRunnerRun: command -o echo":                                                   {want: "gosh: line 1: command: -o: invalid option\ncommand: usage: command [-pVv] command [arg ...]\nexit status 2", why: whyMeta},
	"TestRunnerRun: command -vo echo":                                                  {want: "gosh: line 1: command: -o: invalid option\ncommand: usage: command [-pVv] command [arg ...]\nexit status 2", why: whyMeta},
	"TestRunnerRun: continue":                                                          {want: "gosh: line 1: continue: only meaningful in a `for', `while', or `until' loop\n", why: whyBuiltinMsg},
	"TestRunnerRun: declare $unset=$unset":                                             {want: "gosh: line 1: declare: `=': not a valid identifier\nexit status 1", why: whyDeclare},
	"TestRunnerRun: declare -B foo":                                                    {want: "gosh: line 1: declare: -B: invalid option\ndeclare: usage: declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]\nexit status 2", why: whyDeclare},
	"TestRunnerRun: declare -n foo=bar; set -u; echo ${foo}":                           {want: "gosh: line 1: foo: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: declare -r -x foo=bar; foo=x":                                      {want: "gosh: line 1: foo: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: declare -r foo=bar; export foo=":                                   {want: "gosh: line 1: foo: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: declare -r foo=bar; foo=etc":                                       {want: "gosh: line 1: foo: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: declare =bar":                                                      {want: "gosh: line 1: declare: `=bar': not a valid identifier\nexit status 1", why: whyDeclare},
	"TestRunnerRun: declare foo{bar=baz":                                               {want: "gosh: line 1: declare: `foo{bar=baz': not a valid identifier\nexit status 1", why: whyDeclare},
	"TestRunnerRun: echo $a; set -u; echo $a; echo extra":                              {want: "\ngosh: line 1: a: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: declare -n foo=bar bar=foo; echo $foo":                             {want: "gosh: line 1: warning: foo: circular name reference\n\n", why: whyRefCircle},
	"TestRunnerRun: echo ${!a}; echo more":                                             {want: "gosh: line 1: a: invalid indirect expansion\nexit status 1", why: whyIndirect},
	"TestRunnerRun: echo ${a:?%s}":                                                     {want: "gosh: line 1: a: %s\nexit status 127", why: whyUnset},
	"TestRunnerRun: echo 'local a=b' >a; source ./a":                                   {want: "./a: line 1: local: can only be used in a function\nexit status 1", why: whySource},
	"TestRunnerRun: echo 'return' >a; source ./a; return":                              {want: "gosh: line 1: return: can only `return' from a function or sourced script\nexit status 2", why: whyBuiltinMsg},
	"TestRunnerRun: echo a{0..9999999999}b":                                            {want: "gosh: line 1: brace expansion would exceed 16384 elements\n", why: whyPrefix},
	"TestRunnerRun: echo foo 5>a":                                                      {want: "foo\n", why: whyDescriptors},
	"TestRunnerRun: echo foo >&5":                                                      {want: "gosh: line 1: 5: Bad file descriptor\nexit status 1", why: whyDescriptors},
	"TestRunnerRun: echo foo >/shouldnotexist/file":                                    {want: "gosh: line 1: /shouldnotexist/file: No such file or directory\nexit status 1", why: whyRedirect},
	"TestRunnerRun: echo foo >a; read -r line <>a":                                     {want: "", why: whyDescriptors},
	"TestRunnerRun: echo foo >|a":                                                      {want: "", why: whyDescriptors},
	"TestRunnerRun: echo {1..100000}":                                                  {want: "gosh: line 1: brace expansion would exceed 16384 elements\n", why: whyPrefix},
	"TestRunnerRun: eval '(x'":                                                         {want: "gosh: eval: line 2: syntax error: unexpected end of file\nexit status 2", why: whySyntaxMsg},
	"TestRunnerRun: exit 1 2":                                                          {want: "gosh: line 1: exit: too many arguments\nexit status 1", why: whyPrefix + "; " + whyExit},
	"TestRunnerRun: exit a":                                                            {want: "gosh: line 1: exit: a: numeric argument required\nexit status 2", why: whyPrefix + "; " + whyExit},
	"TestRunnerRun: f() { return a; }; f":                                              {want: "gosh: line 1: invalid return status code: \"a\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: foo() { bar=foo; readonly bar; }; foo; bar=bar":                    {want: "gosh: line 1: bar: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: foo() { readonly bar; }; foo; bar=foo":                             {want: "gosh: line 1: bar: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: getopts":                                                           {want: "getopts: usage: getopts optstring name [arg ...]\nexit status 2", why: whyGetopts},
	"TestRunnerRun: getopts a a:b":                                                     {want: "gosh: line 1: getopts: `a:b': not a valid identifier\nexit status 1", why: whyGetopts},
	"TestRunnerRun: getopts a: opt -a":                                                 {want: "gosh: option requires an argument -- a\n", why: whyGetopts},
	"TestRunnerRun: getopts abc opt -z":                                                {want: "gosh: illegal option -- z\n", why: whyGetopts},
	"TestRunnerRun: help -q":                                                           {want: "gosh: line 1: help: -q: invalid option\ngosh: line 1: help: usage: help [-dms] [pattern ...]\nexit status 2", why: whyPrefix},
	"TestRunnerRun: help nosuchthing":                                                  {want: "gosh: line 1: help: no help topics match `nosuchthing'.  Try `help help'.\nexit status 1", why: whyPrefix},
	"TestRunnerRun: local a=b":                                                         {want: "gosh: line 1: local: can only be used in a function\nexit status 1", why: whyPrefix},
	"TestRunnerRun: mkdir a; chmod 0000 a; cd a":                                       {want: "gosh: line 1: cd: a: Permission denied\nexit status 1", root: "", rootDiffers: true, why: whyRoot},
	"TestRunnerRun: mkdir a; chmod 0001 a; cd a":                                       {want: "gosh: line 1: cd: a: Permission denied\nexit status 1", root: "", rootDiffers: true, why: whyRoot},
	"TestRunnerRun: mkdir a; chmod 0010 a; cd a":                                       {want: "gosh: line 1: cd: a: Permission denied\nexit status 1", root: "", rootDiffers: true, why: whyRoot},
	"TestRunnerRun: mkdir a; chmod 0222 a; cd a":                                       {want: "gosh: line 1: cd: a: Permission denied\nexit status 1", root: "", rootDiffers: true, why: whyRoot},
	"TestRunnerRun: mkdir a; chmod 0444 a; cd a":                                       {want: "gosh: line 1: cd: a: Permission denied\nexit status 1", root: "", rootDiffers: true, why: whyRoot},
	"TestRunnerRun: mkdir a; pushd a >/dev/null; pushd >/dev/null; rm -r a; popd":      {want: "gosh: line 1: popd: {{tdir}}/a: No such file or directory\nexit status 1", why: whyBuiltinMsg},
	"TestRunnerRun: mkdir a; pushd a >/dev/null; pushd >/dev/null; rm -r a; pushd":     {want: "gosh: line 1: pushd: {{tdir}}/a: No such file or directory\nexit status 1", why: whyBuiltinMsg},
	"TestRunnerRun: popd":                                                              {want: "gosh: line 1: popd: directory stack empty\nexit status 1", why: whyPrefix},
	"TestRunnerRun: popd -n":                                                           {want: "gosh: line 1: popd: directory stack empty\nexit status 1", why: whyPrefix},
	"TestRunnerRun: popd foo":                                                          {want: "gosh: line 1: popd: invalid argument\nexit status 2", why: whyPrefix},
	"TestRunnerRun: printf":                                                            {want: "printf: usage: printf [-v var] format [arguments]\nexit status 2", why: whyPrintf},
	"TestRunnerRun: printf %":                                                          {want: "gosh: line 1: printf: `%': missing format character\nexit status 1", why: whyPrintfBash},
	"TestRunnerRun: printf %+":                                                         {want: "gosh: line 1: printf: `%+': missing format character\nexit status 1", why: whyPrintfBash},
	"TestRunnerRun: printf %1":                                                         {want: "gosh: line 1: printf: `%1': missing format character\nexit status 1", why: whyPrintfBash},
	"TestRunnerRun: printf %12-s foo":                                                  {want: "gosh: line 1: printf: `-': invalid format character\nexit status 1", why: whyPrintfBash},
	"TestRunnerRun: printf %; echo foo":                                                {want: "gosh: line 1: printf: `%': missing format character\nfoo\n", why: whyPrintfBash},
	"TestRunnerRun: printf %B foo":                                                     {want: "gosh: line 1: printf: `B': invalid format character\nexit status 1", why: whyPrintfBash},
	"TestRunnerRun: pushd":                                                             {want: "gosh: line 1: pushd: no other directory\nexit status 1", why: whyPrefix},
	"TestRunnerRun: pushd does-not-exist; set -- $(dirs); echo $#":                     {want: "gosh: line 1: pushd: does-not-exist: No such file or directory\n1\n", why: whyBuiltinMsg},
	"TestRunnerRun: pushd foo bar":                                                     {want: "gosh: line 1: pushd: too many arguments\nexit status 2", why: whyPrefix},
	"TestRunnerRun: pwd -L -P -a":                                                      {want: "gosh: line 1: invalid option: \"-a\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: pwd -a":                                                            {want: "gosh: line 1: invalid option: \"-a\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: read -X":                                                           {want: "gosh: line 1: read: invalid option \"-X\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: read -X -p":                                                        {want: "gosh: line 1: read: invalid option \"-X\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: read -p":                                                           {want: "gosh: line 1: read: -p: option requires an argument\nexit status 2", why: whyPrefix},
	"TestRunnerRun: read -rX":                                                          {want: "gosh: line 1: read: invalid option \"-X\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: read 0ab":                                                          {want: "gosh: line 1: read: `0ab': not a valid identifier\nexit status 1", why: whyReadName},
	"TestRunnerRun: readonly RANDOM; RANDOM=99; echo $?":                               {want: "gosh: line 1: RANDOM: readonly variable\n1\n", why: whyPrefix},
	"TestRunnerRun: readonly a=1; echo $a; unset a; echo $a":                           {want: "1\ngosh: line 1: unset: a: cannot unset: readonly variable\n1\n", why: whyUnsetReadonly},
	"TestRunnerRun: readonly foo=bar; foo=etc":                                         {want: "gosh: line 1: foo: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: readonly i; ((i=3)); echo $?; echo $i":                             {want: "gosh: line 1: i: readonly variable\n1\n\n", why: whyPrefix},
	"TestRunnerRun: readonly i; for ((i=0; i<3; i++)); do echo $i; done":               {want: "gosh: line 1: i: readonly variable\nexit status 1", why: whyPrefix},
	"TestRunnerRun: return":                                                            {want: "gosh: line 1: return: can only `return' from a function or sourced script\nexit status 2", why: whyBuiltinMsg},
	"TestRunnerRun: s=x; unset 's[5]'; echo $s":                                        {want: "gosh: line 1: unset: s: not an array variable\nx\n", why: whyPrefix},
	"TestRunnerRun: set -U":                                                            {want: "gosh: line 1: set: invalid option: \"-U\"\nexit status 2", why: whyPrefix},
	"TestRunnerRun: set -a; set +o":                                                    {want: "set -o allexport\nset -o braceexpand\nset +o emacs\nset +o errexit\nset +o errtrace\nset +o functrace\nset -o hashall\nset +o histexpand\nset +o history\nset +o ignoreeof\nset -o interactive-comments\nset +o keyword\nset +o monitor\nset +o noclobber\nset +o noexec\nset +o noglob\nset +o nolog\nset +o notify\nset +o nounset\nset +o onecmd\nset +o physical\nset +o pipefail\nset +o posix\nset +o privileged\nset +o verbose\nset +o vi\nset +o xtrace\n", why: whyNoclobber + "; " + whyTraceOpts + "; " + whySetOptions},
	"TestRunnerRun: set -e; echo foo >/shouldnotexist/file; echo foo":                  {want: "gosh: line 1: /shouldnotexist/file: No such file or directory\nexit status 1", why: whyRedirect},
	"TestRunnerRun: set -o foobar":                                                     {want: "gosh: line 1: set: foobar: invalid option name\nexit status 2", why: whyBuiltinMsg},
	"TestRunnerRun: set -u; echo ${#foo}":                                              {want: "gosh: line 1: foo: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: set -u; echo ${1}":                                                 {want: "gosh: line 1: 1: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: set -u; echo ${foo#bar}":                                           {want: "gosh: line 1: foo: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: set -u; echo ${foo/bar/}":                                          {want: "gosh: line 1: foo: unbound variable\nexit status 127", why: whyUnset},
	"TestRunnerRun: set -u; echo ${foo:?bar}":                                          {want: "gosh: line 1: foo: bar\nexit status 127", why: whyUnset},
	"TestRunnerRun: set -u; echo ${foo?bar}":                                           {want: "gosh: line 1: foo: bar\nexit status 127", why: whyUnset},
	"TestRunnerRun: shift a":                                                           {want: "gosh: line 1: shift: a: numeric argument required\nexit status 1", why: whyMeta},
	"TestRunnerRun: shopt -s interactive_comments":                                     {want: "gosh: line 1: shopt: unsupported option \"interactive_comments\"\nexit status 1", why: whyPrefix},
	"TestRunnerRun: shopt -s login_shell":                                              {want: "gosh: line 1: shopt: unsupported option \"login_shell\"\nexit status 1", why: whyPrefix},
	"TestRunnerRun: source":                                                            {want: "gosh: line 1: source: filename argument required\nsource: usage: source filename [arguments]\nexit status 2", why: whyMeta},
	"TestRunnerRun: touch az a1z a12z a123z; echo a?([0-9])z":                          {want: "gosh: line 1: extended globbing operator used without the \"extglob\" option set\n", why: whyPrefix},
	"TestRunnerRun: trap '(' ERR; false; trap 'echo ok' ERR; false; :":                 {want: "gosh: error trap: line 2: syntax error: unexpected end of file\nok\n", why: whySyntaxMsg},
	"TestRunnerRun: type -o echo":                                                      {want: "gosh: line 1: type: -o: invalid option\ntype: usage: type [-afptP] name [name ...]\nexit status 2", why: whyMeta},
	"TestRunnerRun: type noexist":                                                      {want: "gosh: line 1: type: noexist: not found\nexit status 1", why: whyPrefix},
	"TestRunnerRun: unset EUID":                                                        {want: "gosh: line 1: unset: EUID: cannot unset: readonly variable\nexit status 1", why: whyUnsetReadonly},
	"TestRunnerRun: unset GID":                                                         {want: "gosh: line 1: unset: GID: cannot unset: readonly variable\nexit status 1", why: whyUnsetReadonly},
	"TestRunnerRun: unset UID":                                                         {want: "gosh: line 1: unset: UID: cannot unset: readonly variable\nexit status 1", why: whyUnsetReadonly},
	"TestRunnerRun: { local a=b; }":                                                    {want: "gosh: line 1: local: can only be used in a function\nexit status 1", why: whyPrefix},
	"TestRunnerUnsupported: () { echo anon; }":                                         {want: "gosh: line 1: unsupported\nexit status 1", why: whyPrefix},
	"TestRunnerUnsupported: a=abc; echo ${a[(r)b]}":                                    {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: cat =(echo hi)":                                            {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: echo \"${}\"":                                              {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: echo ${%a}":                                                {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: echo ${+a}":                                                {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: echo ${:-foo}":                                             {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: echo x${}y":                                                {want: "gosh: line 1: unsupported\n", why: whyPrefix},
	"TestRunnerUnsupported: function f g { echo multi; }":                              {want: "gosh: line 1: unsupported\nexit status 1", why: whyPrefix},
	"TestRunnerRun: f() { echo hello; }; declare -f f":                                 {want: "f () \n{ \n    echo hello\n}\n", why: whyFuncText},
	"TestRunnerRun: builtin noexist":                                                   {want: "gosh: line 1: builtin: noexist: not a shell builtin\nexit status 1", why: whyMeta},
	"TestRunnerUnsupported: function { echo anon; }":                                   {want: "gosh: line 1: unsupported\nexit status 1", why: whyPrefix},
	"TestRunnerRun: wait foo":                                                          {want: "gosh: line 1: wait: `foo': not a pid or valid job spec\nexit status 1", why: whyPrefix + "; " + whyJobs},
	"TestRunnerRun: printf '\\x'":                                                      {want: "gosh: line 1: printf: missing hex digit for \\x\n\\x", why: whyPrintfBash},
	"TestRunnerRun: set -aefu; echo $-":                                                {want: "aefhuBc\n", why: whyOptions},
	"TestRunnerRun: echo $(GOSH_CMD=foo_null_bar $GOSH_PROG)":                          {want: "gosh: line 1: warning: command substitution: ignored null byte in input\nfoobar\n", why: whyNul},
	"TestRunnerRun: a=foo; echo \"<${a@K}><${a@k}>\"":                                  {want: "<'foo'><'foo'>\n", why: whyTransform},
	"TestRunnerRun: export e=1; echo \"${e@A}\"":                                       {want: "declare -x e='1'\n", why: whyTransform},
	"TestRunnerRun: a=hello; echo \"${a@A}\"":                                          {want: "a='hello'\n", why: whyTransform},
	"TestRunnerRun: shopt -s extglob\ncase \"bar\" in .*!(foo)) echo match;; esac":     {want: "", why: whyExtNeg},
	"TestRunnerRun: shopt -s extglob\ncase \".foo\" in .*!(foo)) echo match;; esac":    {want: "match\n", why: whyExtNeg},
	"TestRunnerRun: shopt -s extglob\ncase \".bar\" in .*!(foo)) echo match;; esac":    {want: "match\n", why: whyExtNeg},
	"TestRunnerRun: shopt -s extglob\ncase \"baz\" in !(foo)!(bar)) echo match;; esac": {want: "match\n", why: whyExtNeg},
	"TestRunnerRun: shopt -s extglob\ncase \"xabab\" in *a!(b)) echo match;; esac":     {want: "match\n", why: whyExtNeg},
}

// Why each case differs: the patches of the README's table.
const (
	whyPosix         = "set -o posix is bash's POSIX mode (special builtins before functions, keeping their assignments)"
	whySource        = "errors as bash words them: an error in a sourced file starts with that file's name (./a: line 1: ), as bash's BASH_SOURCE"
	whyPrefix        = "errors as bash words them: each error the interpreter reports starts with $0 and the line (gosh: line 1: )"
	whyUnset         = "builtin messages and statuses as in bash: an unset variable under set -u, or ${x?}, ends the script with status 127 (and errors start with gosh: line N: )"
	whyRedirect      = "errors as bash words them: a redirection that cannot open is path: No such file or directory"
	whyBuiltinMsg    = "builtin messages and statuses as in bash: bash's own words for cd, pushd, popd, break, continue, set -o, [ and test, unset of a read-only variable and shift, and return's status 2 outside a function"
	whyDescriptors   = "descriptors 3 to 9: redirections open, duplicate and close them, >| writes as > does and <> opens for reading and writing"
	whyDeclare       = "declaration builtins as commands: declare's errors in bash's words (`x': not a valid identifier, -B: invalid option, with bash's usage line)"
	whyPrintf        = "printf %q and -v: bash's usage line, which names -v, without the line prefix (bash prints it bare)"
	whyPrintfBash    = "printf as bash 5.2: bash's words for a bad conversion (`B': invalid format character, `%1': missing format character) and a \\x without digits"
	whyNoclobber     = "set -C: noclobber is an option of its own, which set +o lists"
	whyRoot          = "builtin messages and statuses as in bash (cd: a: Permission denied); as root, which may enter any directory, cd succeeds (upstream's own note: these succeed if we're root), and the test command runs as root in CI"
	whyReadPrompt    = "read -n, -N, -d, -p and -u: read -p prints its prompt as bash does, on stderr and only when reading a terminal"
	whyFlaky         = "flaky as upstream wrote it: v3.14.1 itself printed nothing in 2 of 400 runs (a race between the process substitution and wait); the patched pipeline's case is in patches_test.go with builtins only"
	whyClassicTest   = "classic test by its number of arguments: test and [ read their arguments by count first, as bash does, with bash's words for a malformed test"
	whyLoopCount     = "break and continue counts: a count that is not a number ends the shell (numeric argument required, status 128), as in bash"
	whySetE          = "set -e where bash ignores it: a command substitution runs without set -e, so inherit_errexit is off, as in bash"
	whyArith         = "arithmetic as bash evaluates it: bash's words for an arithmetic error (the expression, error token), which ends the command and the rest of its line"
	whyCd            = "cd as in bash: two operands are too many arguments (status 1), and cd '' stays where it is"
	whyShopt         = "shopt as in bash: -p and -q, and bash's words for an unknown option"
	whyTrap          = "trap as in bash: an unknown signal fails with status 1"
	whyBadSubscript  = "arrays as in bash: an element before an array's start is a warning in bash's words (a: bad array subscript) and expands to nothing"
	whyUnsetReadonly = "arrays and assignments as in bash: unset of a read-only variable fails (status 1) in bash's words (unset: a: cannot unset: readonly variable)"
	whyRefCircle     = "namerefs as in bash: reading through a circle of namerefs warns (foo: circular name reference)"
	whyIndirect      = "indirect expansion as in bash: an unset reference is named in the error (a: invalid indirect expansion)"
	whySetOptions    = "set -o and set +o list all of bash's options, sorted, with braceexpand, hashall and interactive-comments on, as bash 5.2 does"
	whyTraceOpts     = "DEBUG, RETURN and ERR traps as in bash: errtrace (set -E) and functrace (set -T) are options, which set +o lists"
	whyExit          = "exit's errors in bash's words"
	whyJobs          = "background jobs as in bash: wait names an operand that is neither a pid nor a job spec as bash does"
	whyFuncText      = "alias, type, command and the meta builtins as in bash: declare -f and type list a function as bash lays it out (f () and a newline, each statement on its own line, indented by four spaces)"
	whyMeta          = "alias, type, command and the meta builtins as in bash: an invalid option is named with the usage line, a missing name is NAME: not found (status 1), a script that does not parse has status 2, shift names a count that is not a number"
	whyGetopts       = "getopts as bash 5.2: its diagnostics after $0 alone (gosh: illegal option -- z), a bare usage line, and an invalid name reported after the scan, with status 1"
	whyOptions       = "options as bash 5.2: $- holds h and B, always on here, and c, as bash -c has it, in bash's order"
	whyArithReread   = "arithmetic as bash evaluates it: a word that expands ($a) is replaced by its text and the expression read again, so the error names that text (b), as bash names the text it read"
	whySyntaxMsg     = "code that does not parse in eval and traps as bash reports it: bash's words (syntax error: unexpected end of file) headed by what read it and the line (eval: line 2, error trap: line 2)"
	whyReadName      = "read into an array's element as bash 5.2: read takes a[i] as a name, and an invalid one is bash's `0ab': not a valid identifier, status 1"
	whyNul           = "NUL bytes as bash 5.2: a command substitution that drops NUL bytes warns, as bash does"
	whyTransform     = "${x@K}, ${x@k} and ${x@A} as bash 5.2: a scalar's value quoted as by ${x@Q}, always ('foo', a='hello')"
	whyExtNeg        = "!(…) anywhere in a pattern: matched as bash matches it (bash 5.2 gives these outputs), where v3.14.1 took only one !(…) between fixed text and refused the rest"
)

type changedCase struct {
	want string // the patched output
	// root is the output when the tests run as root, where rootDiffers
	// (root may enter any directory).
	root        string
	rootDiffers bool
	why         string
	skip        bool // the case cannot run at all (it panics); why says until when
}

var changedUsed sync.Map

// changedWant returns what upstream's case (test, input) gives with the
// patches: the patched output from the list, or upstream's own.
func changedWant(t *testing.T, in, want string) string {
	t.Helper()
	test, _, _ := strings.Cut(t.Name(), "/")
	c, ok := upstreamChanged[test+": "+in]
	if !ok {
		return want
	}
	changedUsed.Store(test+": "+in, true)
	if c.rootDiffers && os.Geteuid() == 0 {
		return c.root
	}
	return c.want
}

// skipLeftOut skips a case the list leaves out.
func skipLeftOut(tb testing.TB, in string) {
	test, _, _ := strings.Cut(tb.Name(), "/")
	if c, ok := upstreamChanged[test+": "+in]; ok && c.skip {
		changedUsed.Store(test+": "+in, true)
		tb.Skipf("left out: %s", c.why)
	}
}

// checkChangedUsed fails the run when an entry of the list matched no
// case: the patch it names changed, or the case went.
func checkChangedUsed() bool {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		return true // a subset ran
	}
	ok := true
	for k := range upstreamChanged {
		if _, used := changedUsed.Load(k); !used {
			println("upstreamChanged: no case is", k)
			ok = false
		}
	}
	return ok
}
