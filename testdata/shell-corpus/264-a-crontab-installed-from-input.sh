# expect: read+write+protected
# why: cron runs what crontab installs
echo '* * * * * sh ~/x' | crontab -
