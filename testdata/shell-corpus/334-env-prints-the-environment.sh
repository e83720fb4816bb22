# expect: none
# why: env prints the environment: no key, and the bridge token hidden
env
