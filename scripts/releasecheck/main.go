// Command releasecheck opens every package scripts/release made in DIR and
// checks what a user relies on: each tarball and each VS Code package of a
// target carries a tandem binary for that target (an ELF or Mach-O file of
// its operating system and architecture, static, built with -trimpath and
// without cgo) stamped with the release's version, every package is in
// SHA256SUMS with its hash, each VS Code package is a workspace extension
// stamped with the same version, and the binary of this machine's own target
// reports the version when run.
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// targets are the platforms of a release: VS Code's target names and Go's.
var targets = []struct{ name, goos, goarch string }{
	{"linux-x64", "linux", "amd64"},
	{"linux-arm64", "linux", "arm64"},
	{"darwin-x64", "darwin", "amd64"},
	{"darwin-arm64", "darwin", "arm64"},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: releasecheck DIR (what scripts/release made)")
		os.Exit(2)
	}
	problems := check(os.Args[1])
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, "releasecheck:", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println("releasecheck: every package carries a static tandem for its target, stamped with its version")
}

func check(dir string) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	sums, err := readSums(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return []string{err.Error()}
	}
	version := ""
	for name := range sums {
		if v, ok := strings.CutSuffix(name, "-linux-x64.tar.gz"); ok {
			version = strings.TrimPrefix(v, "tandem-")
		}
	}
	if version == "" {
		return []string{"SHA256SUMS lists no linux-x64 tarball to take the version from"}
	}
	for _, t := range targets {
		base := "tandem-" + version + "-" + t.name
		for _, pkg := range []string{base + ".tar.gz", base + ".vsix"} {
			data, err := os.ReadFile(filepath.Join(dir, pkg))
			if err != nil {
				fail("%s: %v", pkg, err)
				continue
			}
			if sum := sha256.Sum256(data); sums[pkg] != hex.EncodeToString(sum[:]) {
				fail("%s: its SHA-256 is not the one SHA256SUMS lists", pkg)
			}
			delete(sums, pkg)
			var bin []byte
			if strings.HasSuffix(pkg, ".vsix") {
				bin, err = fromVSIX(data, t.name, version)
			} else {
				bin, err = fromTarball(data, base+"/tandem")
			}
			if err != nil {
				fail("%s: %v", pkg, err)
				continue
			}
			if err := checkBinary(bin, t.goos, t.goarch, version); err != nil {
				fail("%s: its tandem %v", pkg, err)
				continue
			}
			if t.goos == runtime.GOOS && t.goarch == runtime.GOARCH {
				if err := runVersion(bin, version); err != nil {
					fail("%s: %v", pkg, err)
				}
			}
		}
	}
	for extra := range sums {
		fail("SHA256SUMS lists %s, which is no package of a target", extra)
	}
	return problems
}

func readSums(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return nil, fmt.Errorf("SHA256SUMS: %q is not a sha256sum line", sc.Text())
		}
		sums[name] = sum
	}
	return sums, sc.Err()
}

func fromTarball(data []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("it holds no %s", name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			if h.Mode&0o111 == 0 {
				return nil, fmt.Errorf("%s is not executable", name)
			}
			return io.ReadAll(tr)
		}
	}
}

// fromVSIX returns the binary a VS Code package carries, after checking
// that its manifest names target, that it is a workspace extension, and
// that the extension is stamped with version.
func fromVSIX(data []byte, target, version string) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	read := func(name string) ([]byte, error) {
		f, err := zr.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	manifest, err := read("extension.vsixmanifest")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(manifest, []byte(`TargetPlatform="`+target+`"`)) {
		return nil, fmt.Errorf("its manifest does not name the target %s", target)
	}
	// Under Remote-SSH, dev containers, WSL and code-server the extension must run beside the
	// files, where the tandem it carries runs.
	pkg, err := read("extension/package.json")
	if err != nil {
		return nil, err
	}
	var manifestJSON struct {
		ExtensionKind []string `json:"extensionKind"`
	}
	if err := json.Unmarshal(pkg, &manifestJSON); err != nil {
		return nil, fmt.Errorf("extension/package.json: %v", err)
	}
	if !slices.Equal(manifestJSON.ExtensionKind, []string{"workspace"}) {
		return nil, fmt.Errorf("its extension/package.json says extensionKind %q, not [\"workspace\"]", manifestJSON.ExtensionKind)
	}
	// The extension compares its own version with tandem's at each start.
	code, err := read("extension/out/extension.js")
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(code, []byte(strconv.Quote(version))) {
		return nil, fmt.Errorf("its extension is not stamped with the version %s", version)
	}
	return read("extension/bin/tandem")
}

// checkBinary checks that bin is a static tandem for goos/goarch, built
// without cgo and with -trimpath, stamped with version.
func checkBinary(bin []byte, goos, goarch, version string) error {
	switch goos {
	case "linux":
		f, err := elf.NewFile(bytes.NewReader(bin))
		if err != nil {
			return fmt.Errorf("is not an ELF file (%v)", err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want {
			return fmt.Errorf("is for %v, not %v", f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				return errors.New("is linked dynamically (it names an interpreter)")
			}
		}
	case "darwin":
		f, err := macho.NewFile(bytes.NewReader(bin))
		if err != nil {
			return fmt.Errorf("is not a Mach-O file (%v)", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want {
			return fmt.Errorf("is for %v, not %v", f.Cpu, want)
		}
	}
	bi, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		return fmt.Errorf("has no Go build information (%v)", err)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	switch {
	case settings["GOOS"] != goos || settings["GOARCH"] != goarch:
		return fmt.Errorf("was built for %s/%s", settings["GOOS"], settings["GOARCH"])
	case settings["CGO_ENABLED"] != "0":
		return errors.New("was built with cgo")
	case settings["-trimpath"] != "true":
		return errors.New("was built without -trimpath")
	case !bytes.Contains(bin, []byte(version)):
		// -trimpath keeps -ldflags out of the build information, and the
		// symbols are stripped: the stamped string is in the data.
		return fmt.Errorf("is not stamped with the version %s", version)
	}
	return nil
}

// runVersion runs bin, this machine's own, and checks what it says.
func runVersion(bin []byte, version string) error {
	dir, err := os.MkdirTemp("", "releasecheck")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tandem")
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		return err
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil || !strings.Contains(string(out), version) {
		return fmt.Errorf("tandem version says %q (%v); want %s", out, err, version)
	}
	return nil
}
