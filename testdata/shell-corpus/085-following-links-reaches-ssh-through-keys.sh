# expect: read+secret
# why: following links reaches ~/.ssh through keys
find -L . -maxdepth 1
