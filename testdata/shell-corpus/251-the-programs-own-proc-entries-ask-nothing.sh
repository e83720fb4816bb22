# expect: read
# why: the program's own executable, descriptors and environment (without credentials)
readlink /proc/self/exe; ls /proc/self/fd; cat /proc/self/environ > /dev/null
