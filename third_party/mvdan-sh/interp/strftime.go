// Copyright (c) 2026, tandem's authors
// See LICENSE for licensing information

package interp

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// strftime formats t as C's strftime(3) does in the C locale, for printf's
// %(FORMAT)T. A conversion it does not know is written as it stands.
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		// glibc's flags and the E and O modifiers change nothing in the C
		// locale but padding; the padding flags are honoured.
		pad := byte(0)
		for i < len(format) && strings.IndexByte("-_0^#", format[i]) >= 0 {
			pad = format[i]
			i++
		}
		for i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			i++
		}
		if i == len(format) {
			break
		}
		num := func(n, width int, fill byte) string {
			switch pad {
			case '-':
				return strconv.Itoa(n)
			case '_':
				fill = ' '
			case '0':
				fill = '0'
			}
			s := strconv.Itoa(n)
			for len(s) < width {
				s = string(fill) + s
			}
			return s
		}
		hour12 := t.Hour() % 12
		if hour12 == 0 {
			hour12 = 12
		}
		isoYear, isoWeek := t.ISOWeek()
		switch c := format[i]; c {
		case '%':
			b.WriteByte('%')
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(strftime("%a %b %e %H:%M:%S %Y", t))
		case 'C':
			b.WriteString(num(t.Year()/100, 2, '0'))
		case 'd':
			b.WriteString(num(t.Day(), 2, '0'))
		case 'D', 'x':
			b.WriteString(strftime("%m/%d/%y", t))
		case 'e':
			b.WriteString(num(t.Day(), 2, ' '))
		case 'F':
			b.WriteString(strftime("%Y-%m-%d", t))
		case 'g':
			b.WriteString(num(isoYear%100, 2, '0'))
		case 'G':
			b.WriteString(num(isoYear, 1, '0'))
		case 'H':
			b.WriteString(num(t.Hour(), 2, '0'))
		case 'I':
			b.WriteString(num(hour12, 2, '0'))
		case 'j':
			b.WriteString(num(t.YearDay(), 3, '0'))
		case 'k':
			b.WriteString(num(t.Hour(), 2, ' '))
		case 'l':
			b.WriteString(num(hour12, 2, ' '))
		case 'm':
			b.WriteString(num(int(t.Month()), 2, '0'))
		case 'M':
			b.WriteString(num(t.Minute(), 2, '0'))
		case 'n':
			b.WriteByte('\n')
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'P':
			b.WriteString(strings.ToLower(t.Format("PM")))
		case 'r':
			b.WriteString(strftime("%I:%M:%S %p", t))
		case 'R':
			b.WriteString(strftime("%H:%M", t))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'S':
			b.WriteString(num(t.Second(), 2, '0'))
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			b.WriteString(strftime("%H:%M:%S", t))
		case 'u':
			b.WriteString(strconv.Itoa((int(t.Weekday())+6)%7 + 1))
		case 'U':
			b.WriteString(num((t.YearDay()+6-int(t.Weekday()))/7, 2, '0'))
		case 'V':
			b.WriteString(num(isoWeek, 2, '0'))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'W':
			b.WriteString(num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2, '0'))
		case 'y':
			b.WriteString(num(t.Year()%100, 2, '0'))
		case 'Y':
			b.WriteString(num(t.Year(), 1, '0'))
		case 'z':
			_, off := t.Zone()
			sign := '+'
			if off < 0 {
				sign, off = '-', -off
			}
			fmt.Fprintf(&b, "%c%02d%02d", sign, off/3600, off/60%60)
		case 'Z':
			name, _ := t.Zone()
			b.WriteString(name)
		default:
			b.WriteByte('%')
			b.WriteByte(c)
		}
	}
	return b.String()
}

// timeLocation is the zone printf's %(…)T formats in: the shell's TZ when
// it is exported, as C's localtime reads it from the environment, else the
// process's own.
func (r *Runner) timeLocation() *time.Location {
	tz := r.lookupVar("TZ")
	if !tz.IsSet() || !tz.Exported {
		return time.Local
	}
	name := tz.String()
	if name == "" {
		return time.UTC
	}
	if loc, err := time.LoadLocation(strings.TrimPrefix(name, ":")); err == nil {
		return loc
	}
	return time.UTC // glibc's reading of a zone it cannot find
}
