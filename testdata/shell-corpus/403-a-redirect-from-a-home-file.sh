# expect: read+outside
# why: the interpreter opens the redirection itself: the home file is judged as the step's read
head -c 4 < ~/.config/unnamed-vault/token
