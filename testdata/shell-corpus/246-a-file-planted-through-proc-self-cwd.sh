# expect: write+secret
# why: touch through the program's /proc/self/cwd writes into ~/.ssh
cd ~/.ssh; touch /proc/self/cwd/planted
