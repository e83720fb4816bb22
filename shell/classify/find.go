package classify

import (
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// findRow classifies find, which reads its starting points (the working
// directory when it names none, and the names a -files0-from list holds:
// see filesFrom). -exec, -execdir, -ok and -okdir run their payload for
// each file: exec, plus the payload's own effects with {} standing for the
// starting points. -delete writes the starting points; -fls, -fprint,
// -fprint0 and -fprintf write their file.
func findRow(c *classifier, args []string, dir string) {
	c.add(approvals.Read)
	i := 0
	follow := false
	// Leading options: -H -L -P, -D debugopts, -Olevel.
	for ; i < len(args); i++ {
		a := args[i]
		if a == "-H" || a == "-L" || a == "-P" {
			follow = follow || a == "-L"
			continue
		}
		if a == "-D" && i+1 < len(args) {
			i++
			continue
		}
		if strings.HasPrefix(a, "-O") {
			continue
		}
		break
	}
	var starts []string
	for ; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == "," {
			break
		}
		starts = append(starts, a)
	}
	c.words(dir, starts, false)
	expr := args[i:]
	listed := false
	for j := 0; j+1 < len(expr); j++ {
		if expr[j] == "-files0-from" {
			// Starting points read from a list: -delete removes them.
			listed = true
			starts = append(starts, c.filesFrom(dir, expr[j+1])...)
		}
	}
	if len(starts) == 0 && !listed {
		starts = []string{"."}
		c.read(dir, ".")
	}
	for j := 0; j < len(expr); j++ {
		a := expr[j]
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			c.add(approvals.Exec)
			end := j + 1
			for end < len(expr) && expr[end] != ";" && expr[end] != "+" {
				end++
			}
			payload := expr[j+1 : end]
			c.payloadEach(dir, payload, starts)
			j = end
		case "-delete":
			c.words(dir, starts, true)
		case "-fls", "-fprint", "-fprint0", "-fprintf":
			if j+1 < len(expr) {
				j++
				c.write(dir, expr[j])
			}
		case "-follow":
			follow = true
		default:
			if strings.HasPrefix(a, "-") {
				continue
			}
			c.read(dir, a)
		}
	}
	if follow {
		// Following symlinks, find reaches whatever they point to.
		for _, s := range starts {
			c.linksInto(dir, s)
		}
	}
}

// payloadEach classifies a payload run once per found file, with {} (and
// any word holding it) standing for each starting point.
func (c *classifier) payloadEach(dir string, payload, starts []string) {
	if len(payload) == 0 {
		return
	}
	for _, s := range starts {
		argv := make([]string, len(payload))
		for k, w := range payload {
			argv[k] = strings.ReplaceAll(w, "{}", s)
		}
		c.command(argv, dir)
	}
}
