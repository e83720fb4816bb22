# expect: read+exec+net
# why: OPENSSL_CONF can load an engine library into curl
OPENSSL_CONF=./o.cnf curl -s https://example.com/
