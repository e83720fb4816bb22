# expect: write+protected
# why: the next login starts autostart entries and systemd user units
mkdir -p ~/.config/autostart ~/.config/systemd/user; touch ~/.config/autostart/x.desktop ~/.config/systemd/user/x.service
