// Copyright (c) 2026, tandem's authors
// See LICENSE for licensing information

//go:build unix && !linux

package interp

import "golang.org/x/sys/unix"

// rlimits are the resources of `ulimit -a` that every other Unix has.
var rlimits = []rlimit{
	{'c', "core file size", "blocks", unix.RLIMIT_CORE, 512},
	{'d', "data seg size", "kbytes", unix.RLIMIT_DATA, 1024},
	{'f', "file size", "blocks", unix.RLIMIT_FSIZE, 512},
	{'n', "open files", "", unix.RLIMIT_NOFILE, 1},
	{'s', "stack size", "kbytes", unix.RLIMIT_STACK, 1024},
	{'t', "cpu time", "seconds", unix.RLIMIT_CPU, 1},
	{'v', "virtual memory", "kbytes", unix.RLIMIT_AS, 1024},
}
