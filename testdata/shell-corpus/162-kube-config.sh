# expect: read+secret
# why: kube config
cat ~/.kube/config
