# expect: read+exec
# why: a lesskey file's #env section sets LESSOPEN, so less runs a program of the file's choosing on what it shows
less --lesskey-src=script.sed README.md
