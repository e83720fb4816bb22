### kill of a background job by $!
sleep 5 & pid=$!; kill $pid; echo kill=$?; wait $pid; echo wait=$?
### kill by signal name and number
sleep 5 & kill -s HUP $!; wait $! 2>/dev/null; echo $?; sleep 5 & kill -9 $!; wait $! 2>/dev/null; echo $?
### kill -0 tells a running job
sleep 5 & kill -0 $!; echo alive=$?; kill $!; wait $!
### kill by job spec
sleep 5 & sleep 5 & kill %1 %+; echo kill=$?; wait %2; echo wait=$?; wait; echo $?
### kill of an unknown job
kill %4; echo $?
### kill with an invalid signal
sleep 5 & kill -9999 $!; echo $?; kill $!
### kill translates signals
kill -l 0 INT 130 SIGUSR1 usr2 64; echo $?; kill -l 128; echo $?
### kill -l lists the signals
kill -l | grep -c SIGTERM
### trap -l lists the signals
trap -l | grep -c 'SIGHUP.*SIGTRAP$'
### kill without operands
kill; echo $?; kill -s; echo $?
### kill of what is no pid
kill abc; echo $?
### wait for a job spec
(exit 6) & wait %1; echo $?
### wait errors
wait %9; echo $?; wait zzz; echo $?; wait 12345678; echo $?
### wait -n
true & wait -n; echo $?; wait -n; echo $?
### jobs lists running jobs
sleep 5 & jobs; jobs -p | wc -l; kill %1
### kill sends the signal named, which a program may catch
mkfifo ready
perl -e '$SIG{TERM} = sub { print "caught TERM\n"; exit 3 }; open(F, ">ready"); print F "up\n"; close F; sleep 5' &
read up < ready; kill -TERM $!; wait $!; echo status=$?
