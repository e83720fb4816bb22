package classify

import (
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
		"ipv6", "parallel", "no-buffer", "progress-bar", "help", "version", "continue-at=", "limit-rate="},
}

// curlWrites are curl's options that write a file: their value is the file,
// except -O/--remote-name(-all) and -J, which write into the output
// directory (the working directory unless --output-dir) a name the server
// picks.
var curlWrites = []string{"-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
	"--stderr", "--etag-save", "--hsts", "--alt-svc", "--libcurl", "--output-dir"}

// curlRow: curl is net; with an option that writes a file it is also write.
// -K/--config reads options from a file, which may write: write and exec.
// Files it uploads (-T, -d @file, -F name=@file) are read, so a secret one
// asks; -n/--netrc reads ~/.netrc.
func curlRow(c *classifier, args []string, dir string) {
	p := curlOpts.parse(args)
	c.add(approvals.Net, approvals.Read)
	for _, k := range curlWrites {
		for _, v := range p.has[k] {
			c.write(dir, v)
		}
	}
	out := dir
	if v := p.val("--output-dir"); v != "" {
		out = cleanDir(dir, v)
	}
	for _, k := range []string{"-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"} {
		if p.set(k) {
			for _, u := range p.ops {
				if b := path.Base(u); b != "." && b != "/" {
					c.write(out, b)
				}
			}
		}
	}
	for _, k := range []string{"-K", "--config"} {
		for _, v := range p.has[k] {
			c.add(approvals.Write, approvals.Exec)
			c.read(dir, v)
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
	c.words(dir, p.ops, false)
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

// wgetRow: wget is net and write: it writes the document it fetches (into
// the working directory unless -O or -P says where), and -o/-a a log.
// -e/--execute and --config run wgetrc commands, --use-askpass a program:
// exec.
func wgetRow(c *classifier, args []string, dir string) {
	p := wgetOpts.parse(args)
	c.add(approvals.Net, approvals.Read, approvals.Write)
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
	for _, k := range []string{"-e", "--execute", "--use-askpass", "--config"} {
		if p.set(k) {
			c.add(approvals.Exec)
		}
	}
	if !p.set("--no-netrc") {
		c.secretFile(".netrc", false)
	}
	c.words(dir, p.vals, false)
	c.words(dir, p.ops, false)
}
