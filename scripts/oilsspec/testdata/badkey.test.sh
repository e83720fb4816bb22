#### bad key
echo x
##stdout x
