# expect: read+exec
# why: --pre= attached
rg --pre=cat x src
