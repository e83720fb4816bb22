# expect: read+exec+secret
# why: timeout and nice pass an earlier export to their payload
export DYLD_INSERT_LIBRARIES=./evil.dylib; timeout 5 nice cat ~/.aws/credentials
