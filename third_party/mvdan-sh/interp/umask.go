package interp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ProcessUmask is the file mode mask of the process, which a script
// starts with. The umask builtin changes the script's own, never this one:
// it is shared by every script and goroutine of the process.
func ProcessUmask() uint32 { return processUmask }

// OpenExact opens a file by open, called with flag or a variant of it, so
// that a file it creates has mode perm exactly: the process's umask, which
// the kernel applies, may take away bits the script's umask leaves (a
// script's `umask 0` under a process's 022). It creates the file
// exclusively, to know that it made it, and then sets its mode.
func OpenExact(flag int, perm fs.FileMode, open func(flag int) (*os.File, error)) (*os.File, error) {
	if flag&os.O_CREATE == 0 || perm.Perm()&fs.FileMode(processUmask) == 0 {
		return open(flag) // nothing the process's mask would take away
	}
	f, err := open(flag | os.O_EXCL)
	if err == nil {
		// Where modes cannot be set (a FAT disk) the file keeps what the
		// kernel gave it: never more than asked.
		_ = f.Chmod(perm.Perm())
		return f, nil
	}
	if flag&os.O_EXCL != 0 || !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	// It exists (or is a link to a file yet to be made, which gets the
	// kernel's mode: never more than asked).
	return open(flag)
}

// ParseUmask reads the mode operand of umask as bash does — octal
// digits, or a symbolic mode (u=rwx,g=rx,o=, a-w, g+w, =rx) changing mask
// — and returns the mask it sets. The error names the byte where bash
// stops, a NUL at the end of the operand as bash prints it.
func ParseUmask(mask uint32, mode string) (uint32, error) {
	if mode != "" && mode[0] >= '0' && mode[0] <= '9' {
		// As bash's read_octal: up to 07777, of which the mask keeps 0777.
		n, err := strconv.ParseUint(mode, 8, 32)
		if err != nil || n > 0o7777 {
			return 0, fmt.Errorf("umask: %s: octal number out of range", mode)
		}
		return uint32(n) & 0o777, nil
	}
	at := func(i int) byte {
		if i < len(mode) {
			return mode[i]
		}
		return 0
	}
	perms := 0o777 &^ mask // umask's symbolic modes name what is allowed
	for i := 0; ; i++ {
		who := uint32(0)
		for ; strings.IndexByte("agou", at(i)) >= 0; i++ {
			who |= map[byte]uint32{'u': 0o700, 'g': 0o070, 'o': 0o007, 'a': 0o777}[mode[i]]
		}
		op := at(i)
		if strings.IndexByte("+-=", op) < 0 {
			return 0, fmt.Errorf("umask: `%c': invalid symbolic mode operator", op)
		}
		bits := uint32(0)
		for i++; strings.IndexByte("rwx", at(i)) >= 0; i++ {
			bits |= map[byte]uint32{'r': 0o444, 'w': 0o222, 'x': 0o111}[mode[i]]
		}
		if c := at(i); c != 0 && c != ',' {
			return 0, fmt.Errorf("umask: `%c': invalid symbolic mode character", c)
		}
		if who == 0 {
			who = 0o777
		}
		switch op {
		case '+':
			perms |= bits & who
		case '-':
			perms &^= bits & who
		case '=':
			perms = perms&^who | bits&who
		}
		if at(i) == 0 {
			return 0o777 &^ perms, nil
		}
	}
}

// umaskSymbolic is a mask as umask -S prints it.
func umaskSymbolic(mask uint32) string {
	perms := 0o777 &^ mask
	var parts []string
	for i, who := range []string{"u", "g", "o"} {
		p := perms >> (6 - 3*i) & 7
		s := who + "="
		for j, c := range "rwx" {
			if p&(4>>j) != 0 {
				s += string(c)
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

// umask runs the umask builtin: it prints the script's mask, or sets it.
func (r *Runner) umask(args []string) exitStatus {
	var exit exitStatus
	symbolic, reusable := false, false
	// As bash's options: "-" and "+..." are modes.
	i := 0
	for ; i < len(args) && len(args[i]) > 1 && args[i][0] == '-'; i++ {
		if args[i] == "--" {
			i++
			break
		}
		for _, c := range args[i][1:] {
			switch c {
			case 'S':
				symbolic = true
			case 'p':
				reusable = true
			default:
				r.errf("umask: -%c: invalid option\numask: usage: umask [-p] [-S] [mode]\n", c)
				exit.code = 2
				return exit
			}
		}
	}
	if mode := args[i:]; len(mode) > 0 {
		m, err := ParseUmask(r.mask, mode[0])
		if err != nil {
			r.errf("%v\n", err)
			exit.code = 1
			return exit
		}
		r.mask = m
		if symbolic { // -p only shapes the listing without a mode
			r.outf("%s\n", umaskSymbolic(m))
		}
		return exit
	}
	text := fmt.Sprintf("%04o", r.mask)
	if symbolic {
		text = umaskSymbolic(r.mask)
	}
	if reusable {
		if symbolic {
			text = "-S " + text
		}
		text = "umask " + text
	}
	r.outf("%s\n", text)
	return exit
}
