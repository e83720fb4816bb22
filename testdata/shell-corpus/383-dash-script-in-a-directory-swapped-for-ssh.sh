# expect: write+exec
# why: the directory of dash's script is swapped for a link to ~/.ssh holding a file of the same name
mkdir -p d; printf 'echo hi\n' > d/id_ed25519
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h d &
for i in $(seq 300); do dash d/id_ed25519; done
