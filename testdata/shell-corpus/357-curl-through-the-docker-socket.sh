# expect: read+net+secret
# why: the docker daemon's socket is root on the host
curl -s --unix-socket /var/run/docker.sock http://localhost/containers/json
