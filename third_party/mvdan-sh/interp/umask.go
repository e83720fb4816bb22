package interp

import (
	"fmt"
	"strconv"
	"strings"
)

// ProcessUmask is the file mode mask of the programs a script starts: the
// process's own, which the umask builtin reports and cannot change (the
// mask is one for the whole process, shared by every script it runs).
func ProcessUmask() uint32 { return processUmask }

// ParseUmask reads the mode operand of umask as bash does — octal
// digits, or a symbolic mode (u=rwx,g=rx,o=, a-w, g+w) changing mask —
// and returns the mask it sets.
func ParseUmask(mask uint32, mode string) (uint32, error) {
	if mode != "" && mode[0] >= '0' && mode[0] <= '9' {
		n, err := strconv.ParseUint(mode, 8, 32)
		if err != nil || n > 0o777 {
			return 0, fmt.Errorf("umask: %s: octal number out of range", mode)
		}
		return uint32(n), nil
	}
	perms := 0o777 &^ mask // umask's symbolic modes name what is allowed
	for _, clause := range strings.Split(mode, ",") {
		who := uint32(0)
		i := 0
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			who |= map[byte]uint32{'u': 0o700, 'g': 0o070, 'o': 0o007, 'a': 0o777}[clause[i]]
		}
		if who == 0 {
			who = 0o777
		}
		if i >= len(clause) || strings.IndexByte("=+-", clause[i]) < 0 {
			return 0, fmt.Errorf("umask: `%c': invalid symbolic mode operator", at(clause, i))
		}
		op := clause[i]
		bits := uint32(0)
		for _, c := range clause[i+1:] {
			switch c {
			case 'r':
				bits |= 0o444
			case 'w':
				bits |= 0o222
			case 'x':
				bits |= 0o111
			default:
				return 0, fmt.Errorf("umask: `%c': invalid symbolic mode character", c)
			}
		}
		switch op {
		case '=':
			perms = perms&^who | bits&who
		case '+':
			perms |= bits & who
		case '-':
			perms &^= bits & who
		}
	}
	return 0o777 &^ perms, nil
}

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return ' '
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

// umask runs the umask builtin: it prints the mask, and accepts setting
// it only to what it is, since the mask cannot change under one script.
func (r *Runner) umask(args []string) exitStatus {
	var exit exitStatus
	symbolic, reusable := false, false
	fp := flagParser{remaining: args}
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-S":
			symbolic = true
		case "-p":
			reusable = true
		default:
			r.errf("umask: %s: invalid option\numask: usage: umask [-p] [-S] [mode]\n", flag)
			exit.code = 2
			return exit
		}
	}
	mask := ProcessUmask()
	if mode := fp.args(); len(mode) > 0 {
		m, err := ParseUmask(mask, mode[0])
		if err != nil {
			r.errf("%v\n", err)
			exit.code = 1
			return exit
		}
		if m != mask {
			r.errf("umask: cannot change the mask from %04o to %04o in this shell\n", mask, m)
			exit.code = 1
		}
		return exit
	}
	text := fmt.Sprintf("%04o", mask)
	if symbolic {
		text = umaskSymbolic(mask)
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
