# expect: exec
# why: bash -c runs itself through an exported variable: in-process shells nest without end
export c='bash -c "$c"'; bash -c "$c"
