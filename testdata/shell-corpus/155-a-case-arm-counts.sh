# expect: write
# why: a case arm counts
case x in x) rm src/a.go;; esac
