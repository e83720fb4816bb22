### lines before the error run
echo a
echo b; fi; echo c
echo d
### an unexpected token ends the script with status 2
fi
echo never
### the line quoted keeps its blanks
echo a

  fi  
### a command spanning lines runs before the error
if true; then
  echo in
fi
done
### a here-document before the error
cat <<EOF
body
EOF
esac
### a backslash-newline joins the lines of a command
echo a \
  b
)
### a statement on the error's line does not run
touch made; }
ls
### the EXIT trap runs after the message
trap 'echo bye $?' EXIT
echo a
fi
### exit before the error: bash never reaches it
echo a
exit 3
fi
### set -e ends the script before the error
set -e
false
fi
### a function defined before the error runs
f() { echo f ran; }
f
then
### an empty then
if true; then
fi
echo after
### an empty loop body
while false; do
done
### a misplaced do
do echo hi
### a word where a function body goes
f(ls)
### an incomplete for
echo hi; for
echo status=$?
### the end of the input inside if
echo hi
if true; then
  echo in
### the end of the input after a pipe
echo a |
### an unclosed double quote
echo a
echo "abc
### an unclosed single quote on a later line
echo a
echo 'a
b
### an unclosed command substitution
echo a
echo $(echo b
### an unclosed backquote
echo a
echo `echo b
### an unclosed parameter expansion
echo ${x
### an unclosed arithmetic expansion
echo $((1 +
### an unclosed array
#! differs: bash ends this one with status 1, not 2
echo a
x=(a b
### an unclosed subshell
(echo a
### an unclosed group
{ echo a
### misplaced parentheses
echo a(b)
### a misplaced ;;
echo 1 ;; echo 2
### an array inside an array
#! differs: bash goes on after an error inside an array's parentheses
a=( inside=() )
echo len=${#a[@]}
### a bash -c payload that does not parse
bash -c 'echo in; fi'
echo status=$?
### a sourced file's syntax error is the file's
printf 'echo one\nfi\necho two\n' > s.sh
bash s.sh
echo status=$?
### else where a command goes
if echo then
  echo
else
  echo
fi
