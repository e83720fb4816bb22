# expect: read+secret
# why: grep of a secret
grep KEY ~/.netrc
