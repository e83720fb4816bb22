# expect: exec+net+secret
# why: docker asks the daemon, outside every sandbox, to mount the host's root
docker run --rm -v /:/host alpine cat /host/etc/shadow
