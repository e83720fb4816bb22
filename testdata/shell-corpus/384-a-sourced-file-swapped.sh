# expect: write+exec
# why: the file source reads is swapped for a link to the key
printf 'echo hi\n' > lib.sh
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h/id_ed25519 lib.sh &
for i in $(seq 300); do . ./lib.sh; done
