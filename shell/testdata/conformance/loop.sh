### for over words
for i in a b c; do echo $i; done
### for over positional parameters
set -- x y; for i; do echo $i; done
### for with quoted at
set -- "a b" c; for i in "$@"; do echo "[$i]"; done
### c-style for
for ((i=0; i<3; i++)); do echo $i; done
### while with counter
i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done
### until
i=0; until [ $i -ge 2 ]; do echo $i; i=$((i+1)); done
### break
for i in 1 2 3; do [ $i = 2 ] && break; echo $i; done
### continue
for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; done
### break 2
for i in 1 2; do for j in a b; do [ $j = b ] && break 2; echo $i$j; done; done
### continue 2
for i in 1 2; do for j in a b; do [ $j = b ] && continue 2; echo $i$j; done; done
### loop variable after the loop
for i in 1 2 3; do :; done; echo $i
### empty list
for i in; do echo never; done; echo $?
### status of a loop that ran nothing
while false; do :; done; echo $?
### status of the last body command
for i in 1; do false; done; echo $?
### glob in for
touch b1 b2; for f in b*; do echo $f; done
### unmatched glob in for
for f in nomatch*; do echo "$f"; done
### while read with IFS
printf 'a:b\nc:d\n' | while IFS=: read x y; do echo "$y$x"; done
### read -r keeps backslashes
printf 'a\\b\n' | while read -r l; do echo "$l"; done
### read without -r
printf 'a\\b\n' | while read l; do echo "$l"; done
### read last line without newline
printf 'a\nb' | while read l || [ -n "$l" ]; do echo "$l"; done
### nested loops
for i in 1 2; do for j in x y; do echo $i$j; done; done
### loop over seq
for i in $(seq 3); do echo -n $i; done; echo
### brace expansion
for i in {1..4}; do echo -n $i; done; echo
### brace expansion with step
echo {0..10..5}
### letters
echo {a..e}
### loop output redirected
for i in 1 2; do echo $i; done | tac
### while true with break
n=0; while true; do n=$((n+1)); [ $n -eq 3 ] && break; done; echo $n
### select-free case in loop
for x in a b; do case $x in a) echo A;; *) echo other;; esac; done
### break outside a loop
break; echo $?
### loop with function
f() { for i in 1 2; do echo f$i; done; }; f
### return from a loop in a function
f() { for i in 1 2 3; do [ $i = 2 ] && return 5; done; }; f; echo $?
### c-style with two variables
for ((i=0, j=10; i<2; i++, j--)); do echo $i $j; done
### infinite for with break
for ((;;)); do echo once; break; done
