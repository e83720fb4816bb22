package classify

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/approvals"
)

// jqImport finds the module paths a jq program imports or includes.
var jqImport = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(?:import|include)\s*"((?:[^"\\]|\\.)*)"`) })

// jqRow classifies jq, which reads its input files, --slurpfile and
// --rawfile files, and a -f program file. A program that imports or includes
// a module, and one read from a file, is exec: jq then reads files the
// classifier does not follow (search paths from module metadata or relative
// to jq itself, imports inside modules). The module paths it can see are
// still judged in each -L directory, ~/.jq and the working directory, as
// jq's own module (NAME.jq, NAME/NAME.jq) and data (NAME.json) files, so one
// into a secret asks; each -L directory is a read.
func jqRow(c *classifier, args []string, dir string) {
	c.add(approvals.Read)
	var prog string
	// dashed: after --, every word is an operand; strs: after --args or
	// --jsonargs, the operands after the program are strings, not files.
	hasProg, fromFile, dashed, strs := false, false, false, false
	var libs, inputs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case dashed || a == "-" || !strings.HasPrefix(a, "-"):
			switch {
			case !hasProg && !fromFile:
				prog, hasProg = a, true
			case !strs:
				inputs = append(inputs, a)
			}
		case a == "--":
			dashed = true
		case a == "--args" || a == "--jsonargs":
			strs = true
		case a == "--arg" || a == "--argjson":
			next()
			next()
		case a == "--slurpfile" || a == "--rawfile":
			next()
			c.read(dir, next())
		case a == "--indent":
			next()
		case a == "-f" || a == "--from-file":
			fromFile = true
			c.read(dir, next())
		case a == "-L" || a == "--library-path":
			libs = append(libs, next())
		case strings.HasPrefix(a, "--library-path="):
			libs = append(libs, strings.TrimPrefix(a, "--library-path="))
		case !strings.HasPrefix(a, "--"):
			// A group of letters: f or L takes the rest of it, or the
			// next word.
			if k := strings.IndexAny(a, "fL"); k > 0 {
				v := a[k+1:]
				if v == "" {
					v = next()
				}
				if a[k] == 'L' {
					libs = append(libs, v)
				} else {
					fromFile = true
					c.read(dir, v)
				}
			}
		}
	}
	if fromFile && hasProg {
		// The program is in the file: the first operand is an input.
		inputs = append([]string{prog}, inputs...)
		prog = ""
	}
	c.words(dir, inputs, false)
	c.words(dir, libs, false)
	imports := jqImport().FindAllStringSubmatch(prog, -1)
	if fromFile || len(imports) > 0 || len(libs) > 0 {
		c.add(approvals.Exec)
	}
	search := append(append([]string(nil), libs...), ".")
	if home := c.p.Env("HOME"); home != "" {
		search = append(search, home+"/.jq")
	}
	for _, m := range imports {
		name := m[1]
		for _, s := range search {
			base := cleanDir(cleanDir(dir, s), name)
			for _, f := range []string{base + ".jq", base + "/" + path.Base(name) + ".jq", base + ".json", base} {
				c.read(dir, f)
			}
		}
	}
}
