### literal
case a in a) echo yes;; esac
### glob pattern
case hello in h*) echo h;; esac
### alternatives
case b in a|b) echo ab;; esac
### default
case z in a) echo a;; *) echo default;; esac
### no match status
case z in a) echo a;; esac; echo $?
### character class
case 5 in [0-9]) echo digit;; esac
### negated class
case x in [!0-9]) echo nondigit;; esac
### question mark
case ab in ??) echo two;; esac
### quoted pattern is literal
case '*' in '*') echo star;; esac
### quoted star does not glob
case abc in "*") echo no;; *) echo yes;; esac
### variable pattern
p='a*'; case abc in $p) echo match;; esac
### quoted variable pattern
p='a*'; case abc in "$p") echo match;; *) echo literal;; esac
### fallthrough ;&
case a in a) echo one;& b) echo two;; c) echo three;; esac
### continue matching ;;&
case ab in a*) echo first;;& *b) echo second;; esac
### empty word
case "" in "") echo empty;; esac
### pattern with spaces
case "a b" in "a b") echo spaced;; esac
### parenthesised pattern
case x in (x) echo paren;; esac
### status of the body
case a in a) false;; esac; echo $?
### case in a function
f() { case $1 in -h) echo help;; *) echo "arg $1";; esac; }; f -h; f x
### extglob
shopt -s extglob
case foo.go in *.@(go|c)) echo source;; esac
### character range
case m in [a-f]) echo low;; [g-z]) echo high;; esac
### escaped glob
case 'a*' in a\*) echo escaped;; esac
### case with command substitution
case $(echo yes) in yes) echo ok;; esac
### multiline
case 2 in
  1) echo one ;;
  2)
    echo two
    ;;
esac
### last arm without ;;
case q in q) echo last
esac
