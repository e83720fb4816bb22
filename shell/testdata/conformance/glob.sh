### star
touch a.txt b.txt c.go; echo *.txt
### question mark
touch a1 a2 a10; echo a?
### bracket
touch x1 x2 x3; echo x[12]
### no match stays
echo nomatch*
### nullglob
shopt -s nullglob; echo start nomatch* end
### failglob
shopt -s failglob; echo nomatch*; echo $?
### dotfiles hidden
touch .hidden visible; echo *
### dotglob
shopt -s dotglob; touch .h v; echo *
### quoted glob literal
touch s1; echo "s*"
### glob in a directory
mkdir d; touch d/f1 d/f2; echo d/*
### sorted
touch c b a; echo ?
### glob of directories only
mkdir d1 d2; touch f; echo */
### globstar
shopt -s globstar; mkdir -p p/q; touch p/q/r.txt; echo **/*.txt
### extglob not
shopt -s extglob
touch a.c a.h a.o; echo !(*.o)
### extglob one of
shopt -s extglob
touch a.c a.h a.o; echo *.@(c|h)
### negated bracket
touch m1 m2 mx; echo m[!0-9]
### glob in a variable
touch v1 v2; p='v*'; echo $p
### glob in a quoted variable
touch v1; p='v*'; echo "$p"
### escaped star
touch e1; echo e\*
### glob with set -f
touch f1; set -f; echo f*
### character class
touch k1 ka; echo k[[:digit:]]
### glob in assignment does not expand
touch z1; x=z*; echo "$x"
### glob in case is not a file match
touch c1; case c1 in c*) echo case;; esac
### glob in test
touch t1; [[ t1 == t* ]] && echo ok
### hidden with explicit dot
touch .dot; echo .d*
### glob and loop
touch l1 l2; for f in l*; do echo "<$f>"; done
### path glob
mkdir -p a/b; touch a/b/c; echo */*/*
### nocaseglob
shopt -s nocaseglob; touch UP; echo u*
