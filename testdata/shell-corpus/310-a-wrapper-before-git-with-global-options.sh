# expect: exec+write+protected
# why: env before git with global options: the config write is judged
env git --no-pager -c user.name=x config core.sshCommand 'sh -c id'
