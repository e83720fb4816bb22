# expect: read+secret
# why: ls -RL lists what keys/ -> ~/.ssh holds, which ls ~/.ssh would ask about
ls -RL
