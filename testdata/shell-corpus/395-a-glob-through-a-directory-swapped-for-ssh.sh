# expect: write+exec
# why: a glob lists d while d is swapped for a link to ~/.ssh
mkdir -p d; : > d/x
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h d &
for i in $(seq 300); do echo d/*; done
