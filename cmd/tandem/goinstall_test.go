package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// A user installs tandem the way Go programs are installed, `go install
// github.com/tandemdev/tandem/cmd/tandem@VERSION`, from outside any
// checkout: the go command refuses a module whose go.mod has a replace
// directive, so this holds only while tandem carries its patched
// interpreter in its own module. The module is served at a version from a
// module proxy laid out in a temporary directory, zipped as a proxy serves
// it (the tracked files as they are), its dependencies from the module
// cache's own proxy layout; nothing goes to the network (so the checksum
// database is not asked either: GOSUMDB=off).
func TestGoInstallAtAVersionFromAModuleProxy(t *testing.T) {
	const (
		path    = "github.com/tandemdev/tandem"
		version = "v0.9.9-installcheck"
	)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	env := func(name string) string {
		out, err := exec.Command(goBin, "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	proxy := t.TempDir()
	dir := filepath.Join(proxy, path, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The tracked files as they are now (a commit object no ref names;
	// HEAD itself when nothing changed).
	rev := "HEAD"
	if out, err := exec.Command("git", "-C", root, "stash", "create").Output(); err != nil {
		t.Fatal(err)
	} else if s := strings.TrimSpace(string(out)); s != "" {
		rev = s
	}
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := zip.CreateFromVCS(f, module.Version{Path: path, Version: version}, root, rev, ""); err != nil {
		t.Fatalf("zipping the module as a proxy serves it: %v", err)
	}
	f.Close()
	gomod, err := exec.Command("git", "-C", root, "show", rev+":go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".mod": gomod, version + ".info": info} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home, bin := t.TempDir(), t.TempDir()
	cmd := exec.Command(goBin, "install", path+"/cmd/tandem@"+version)
	cmd.Dir = home // outside any module
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+proxy+",file://"+filepath.Join(env("GOMODCACHE"), "cache", "download"),
		"GOMODCACHE="+filepath.Join(home, "modcache"), "GOFLAGS=-modcacherw", "GOWORK=off",
		"GOSUMDB=off", "GOBIN="+bin, "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@%s: %v\n%s", path, version, err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "tandem"), "version").Output()
	if err != nil || !strings.Contains(string(out), version) {
		t.Fatalf("the installed tandem says %q (%v); want its version %s", out, err, version)
	}
}
