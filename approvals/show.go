package approvals

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Show renders argv as the bash words a user reads in a question: a word is
// left bare when bash reads it back unchanged, single-quoted when it holds
// shell syntax, and written as $'…' when it holds a character a terminal
// hides or moves (controls, bidi overrides, zero-width and other format
// characters, non-ASCII spaces, invalid UTF-8). Bash reads every shown word
// back as the exact argument, so what is approved is what runs.
func Show(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(showWord(w))
	}
	return b.String()
}

// ShowAssigned renders argv run with the assignments vars (NAME=value) before
// it, as bash reads that command back: `LD_PRELOAD=./x.so cat f`, with each
// value quoted as Show quotes a word.
func ShowAssigned(vars []string, argv []string) string {
	var b strings.Builder
	for _, kv := range vars {
		name, value, _ := strings.Cut(kv, "=")
		b.WriteString(name + "=" + showWord(value) + " ")
	}
	b.WriteString(Show(argv))
	return b.String()
}

func showWord(w string) string {
	if w == "" {
		return "''"
	}
	bare := true
	for i, r := range w {
		if hidden(w, i, r) {
			return ansiC(w)
		}
		if !(r == '-' || r == '_' || r == '.' || r == '/' || r == ',' || r == ':' || r == '+' || r == '@' || r == '%' ||
			r == '=' && i > 0 || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 0x7f) {
			bare = false
		}
	}
	if bare {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// hidden reports whether the rune at w[i] would not show as itself.
func hidden(w string, i int, r rune) bool {
	if r == utf8.RuneError {
		if _, size := utf8.DecodeRuneInString(w[i:]); size <= 1 {
			return true
		}
	}
	return !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r)
}

// ansiC writes w as a bash $'…' word.
func ansiC(w string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); {
		r, size := utf8.DecodeRuneInString(w[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, w[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(w, i, r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case hidden(w, i, r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}
