# expect: read+exec+secret
# why: declare -x exports like export does
declare -x LD_AUDIT=./audit.so; cat ~/.git-credentials
