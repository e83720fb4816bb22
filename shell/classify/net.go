package classify

import (
	"net/url"
	"path"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

var curlOpts = opts{
	short: "0123469aBfgGiIjJklLMnNOpqRsSvVZA:b:c:C:d:D:e:E:F:H:K:m:o:P:Q:r:t:T:u:U:w:x:X:y:Y:z:",
	long: []string{"output=", "remote-name", "remote-name-all", "output-dir=", "create-dirs", "dump-header=",
		"cookie-jar=", "config=", "trace=", "trace-ascii=", "stderr=", "etag-save=", "hsts=", "alt-svc=",
		"libcurl=", "remote-header-name", "netrc", "netrc-optional", "netrc-file=", "cookie=", "data=",
		"data-binary=", "data-raw=", "data-ascii=", "data-urlencode=", "form=", "form-string=", "upload-file=",
		"header=", "proxy-header=", "user=", "proxy-user=", "url=", "request=", "user-agent=", "referer=",
		"cert=", "key=", "cacert=", "capath=", "max-time=", "connect-timeout=", "retry=", "range=", "write-out=",
		"proxy=", "resolve=", "connect-to=", "unix-socket=", "abstract-unix-socket=", "json=", "variable=",
		"etag-compare=", "time-cond=", "quote=", "location", "silent", "show-error", "fail", "insecure",
		"compressed", "verbose", "include", "head", "get", "globoff", "http1.1", "http2", "http3", "ipv4",
		"ipv6", "parallel", "no-buffer", "progress-bar", "help", "version", "continue-at=", "limit-rate=",
		"disable", "url-query="},
}

// curlWrites are curl's options that write a file: their value is the file,
// except -O/--remote-name(-all) and -J, which write into the output
// directory (the working directory unless --output-dir) a name the server
// picks.
var curlWrites = []string{"-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
	"--stderr", "--etag-save", "--hsts", "--alt-svc", "--libcurl", "--output-dir"}

// curlNameAtFile are curl's options whose value may be name@file: the file
// is read (the first of '=' and '@' decides).
var curlNameAtFile = []string{"--data-urlencode", "--variable"}

// maxConfigNest bounds the -K files that name further ones.
const maxConfigNest = 4

// curlRow classifies curl, which is net and reads. It first reads its
// default config (~/.curlrc, unless -q comes first), whose options count as
// if given on the command line. Options that write a file make it write;
// files it sends (-T, -d @file, -F name=@file, -F name=<file,
// --data-urlencode name@file) and file:// URLs are reads, so a secret one
// asks; -n/--netrc reads ~/.netrc. A -K/--config file is read and its
// options judged too, and it is exec: a step running beside it can rewrite
// the file after the judgement (~/.curlrc cannot change unasked: it is
// outside the workspace).
func curlRow(c *classifier, args []string, dir string) {
	c.add(approvals.Net, approvals.Read)
	p := curlOpts.parse(args)
	if len(args) == 0 || args[0] != "-q" && args[0] != "--disable" {
		if rc := c.curlrc(); rc != "" {
			c.readDefault(dir, rc)
			p = merge(c.curlConfig(dir, rc), p)
		}
	}
	c.curlParsed(p, dir, 0)
}

// curlrc is the default config curl reads: the first that exists of
// $CURL_HOME/.curlrc, $XDG_CONFIG_HOME/curlrc and ~/.curlrc.
func (c *classifier) curlrc() string {
	var cands []string
	if h := c.p.Env("CURL_HOME"); h != "" {
		cands = append(cands, h+"/.curlrc")
	}
	if x := c.p.Env("XDG_CONFIG_HOME"); x != "" {
		cands = append(cands, x+"/curlrc")
	}
	if h := c.p.Env("HOME"); h != "" {
		cands = append(cands, h+"/.curlrc")
	}
	for _, f := range cands {
		if c.p.ExamineForProgram("/", f).Exists {
			return f
		}
	}
	return ""
}

// curlParsed judges curl's options and URLs; nest counts the -K files
// that led here.
func (c *classifier) curlParsed(p parsed, dir string, nest int) {
	for _, k := range curlWrites {
		for _, v := range p.has[k] {
			c.write(dir, v)
		}
	}
	out := dir
	if v := p.val("--output-dir"); v != "" {
		out = cleanDir(dir, v)
	}
	urls := append(append([]string(nil), p.ops...), p.has["--url"]...)
	for _, k := range []string{"-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"} {
		if p.set(k) {
			for _, u := range urls {
				if b := path.Base(u); b != "." && b != "/" {
					c.write(out, b)
				}
			}
		}
	}
	for _, k := range []string{"-K", "--config"} {
		for _, v := range p.has[k] {
			c.add(approvals.Exec)
			c.read(dir, v)
			if nest < maxConfigNest {
				c.curlParsed(c.curlConfig(dir, v), dir, nest+1)
			}
		}
	}
	if p.set("-n") || p.set("--netrc") || p.set("--netrc-optional") {
		c.secretFile(".netrc", true)
	}
	for _, v := range p.vals {
		c.read(dir, v)
		// @file and <file name file contents to send.
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == '=' || r == ',' }) {
			if strings.HasPrefix(part, "@") || strings.HasPrefix(part, "<") {
				c.read(dir, part[1:])
			}
		}
	}
	for _, k := range curlNameAtFile {
		for _, v := range p.has[k] {
			if i := strings.IndexAny(v, "=@"); i >= 0 && v[i] == '@' {
				c.read(dir, v[i+1:])
			}
		}
	}
	for _, u := range urls {
		c.read(dir, u)
		c.fileURL(dir, u, p.set("-g") || p.set("--globoff"))
	}
}

// fileURL judges a file:// URL as a read of its path. curl expands {a,b}
// and [1-9] in a URL unless told not to: such a URL reads paths tandem
// does not list, so it is exec.
func (c *classifier) fileURL(dir, u string, globoff bool) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || !strings.EqualFold(scheme, "file") {
		return
	}
	host, p, _ := strings.Cut(rest, "/")
	if host != "" && !strings.EqualFold(host, "localhost") && host != "127.0.0.1" {
		return // curl refuses another host's file
	}
	p, _, _ = strings.Cut("/"+p, "?")
	p, _, _ = strings.Cut(p, "#")
	if dec, err := url.PathUnescape(p); err == nil {
		p = dec
	}
	if !globoff && strings.ContainsAny(p, "{[") {
		c.add(approvals.Exec)
	}
	c.read(dir, p)
}

// curlConfig reads a curl config file: each line is an option, with or
// without its dashes, and its value after blanks, '=' or ':' (quoted when
// it holds blanks).
func (c *classifier) curlConfig(dir, file string) parsed {
	p := parsed{has: map[string][]string{}}
	text, ok := c.textOf(dir, file)
	if !ok {
		return p
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, " \t=:"); i >= 0 {
			name, rest = line[:i], strings.TrimLeft(line[i:], " \t=:")
		}
		if !strings.HasPrefix(name, "-") {
			name = "--" + name
		}
		args := []string{name}
		if rest != "" {
			args = append(args, configValue(rest))
		}
		p = merge(p, curlOpts.parse(args))
	}
	return p
}

// configValue is a config line's value: a quoted string with its
// backslash escapes undone, or the text up to the first blank.
func configValue(rest string) string {
	if !strings.HasPrefix(rest, `"`) {
		v, _, _ := strings.Cut(strings.ReplaceAll(rest, "\t", " "), " ")
		return v
	}
	var b strings.Builder
	for i := 1; i < len(rest) && rest[i] != '"'; i++ {
		ch := rest[i]
		if ch == '\\' && i+1 < len(rest) {
			i++
			ch = rest[i]
			switch ch {
			case 't':
				ch = '\t'
			case 'n':
				ch = '\n'
			case 'r':
				ch = '\r'
			case 'v':
				ch = '\v'
			}
		}
		b.WriteByte(ch)
	}
	return b.String()
}

var wgetOpts = opts{
	short: "46bcdEFhHkKLmnNpqrSvxe:o:a:O:P:i:B:t:T:w:Q:U:l:A:R:D:I:X:",
	long: []string{"output-document=", "directory-prefix=", "output-file=", "append-output=", "input-file=",
		"execute=", "use-askpass=", "post-file=", "body-file=", "load-cookies=", "save-cookies=",
		"certificate=", "private-key=", "ca-certificate=", "netrc", "no-netrc", "config=", "rejected-log=",
		"warc-file=", "user=", "password=", "header=", "user-agent=", "tries=", "timeout=", "wait=",
		"quota=", "level=", "accept=", "reject=", "domains=", "include-directories=", "exclude-directories=",
		"method=", "body-data=", "post-data=", "quiet", "verbose", "recursive", "mirror", "continue",
		"no-clobber", "timestamping", "spider", "help", "version", "base=", "referer="},
}

// wgetRow classifies wget, which is net and write: it writes the document it
// fetches (into the working directory unless -O or -P says where), and -o/-a
// a log. It first reads its config (--config FILE, else $WGETRC, else
// ~/.wgetrc, unless --no-config), whose commands count as the options they
// set, as do those of -e/--execute. --use-askpass (use_askpass) runs a
// program, and a --config file named on the command line is exec: a step
// running beside it can rewrite it after the judgement.
func wgetRow(c *classifier, args []string, dir string) {
	p := wgetOpts.parse(args)
	c.add(approvals.Net, approvals.Read, approvals.Write)
	if !p.set("--no-config") {
		rc := p.val("--config")
		read := c.readDefault
		switch {
		case rc != "":
			c.add(approvals.Exec)
			read = c.read
		case c.p.HasEnv("WGETRC"):
			rc = c.p.Env("WGETRC")
		case c.p.Env("HOME") != "":
			rc = c.p.Env("HOME") + "/.wgetrc"
		}
		if rc != "" {
			if text, ok := c.textOf(dir, rc); ok {
				read(dir, rc)
				p = merge(wgetrc(strings.Split(text, "\n")), p)
			}
		}
	}
	p = merge(p, wgetrc(append(p.has["-e"], p.has["--execute"]...)))
	wrote := false
	for _, k := range []string{"-O", "--output-document", "-o", "--output-file", "-a", "--append-output",
		"--save-cookies", "--warc-file", "--rejected-log"} {
		for _, v := range p.has[k] {
			c.write(dir, v)
			wrote = wrote || k == "-O" || k == "--output-document"
		}
	}
	out := dir
	for _, k := range []string{"-P", "--directory-prefix"} {
		if v := p.val(k); v != "" {
			out = cleanDir(dir, v)
		}
	}
	if !wrote {
		for _, u := range p.ops {
			b := path.Base(u)
			if b == "." || b == "/" || strings.HasSuffix(u, "/") || !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "/") {
				b = "index.html"
			}
			c.write(out, b)
		}
	}
	if p.set("--use-askpass") {
		c.add(approvals.Exec)
	}
	if !p.set("--no-netrc") {
		c.secretFile(".netrc", false)
	}
	c.words(dir, p.vals, false)
	c.words(dir, p.ops, false)
}

// wgetrcOptions are the wgetrc commands that name a file or a program (by
// their name in lower case without '_' and '-', as wget reads them), and
// the option each sets.
var wgetrcOptions = map[string]string{
	"outputdocument": "--output-document", "logfile": "--output-file", "input": "--input-file",
	"postfile": "--post-file", "bodyfile": "--body-file", "loadcookies": "--load-cookies",
	"savecookies": "--save-cookies", "certificate": "--certificate", "privatekey": "--private-key",
	"cacertificate": "--ca-certificate", "dirprefix": "--directory-prefix", "warcfile": "--warc-file",
	"rejectedlog": "--rejected-log", "useaskpass": "--use-askpass",
}

// wgetrc reads wgetrc commands (NAME = VALUE; # starts a comment) as the
// options they set. The value of any other command is kept as an option
// value, so a secret path in it still asks.
func wgetrc(lines []string) parsed {
	var args []string
	for _, line := range lines {
		line = strings.TrimSpace(line)
		name, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		key := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(name)))
		opt, known := wgetrcOptions[key]
		if !known {
			opt = "--wgetrc-" + key
		}
		args = append(args, opt+"="+strings.TrimSpace(value))
	}
	return wgetOpts.parse(args)
}
