# expect: read+exec
# why: eval of a decoded payload: the payload is unknown until it runs
eval "$(echo cm0gLXJmIH4vLnNzaA== | base64 -d)"
