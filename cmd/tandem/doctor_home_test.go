package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// plantSettings writes a user settings file under base/.config/tandem whose
// value doctor reports when the file is read (budgetSeconds must be above
// 0), so the output tells whether tandem read it.
func plantSettings(t *testing.T, base string, mode os.FileMode) string {
	t.Helper()
	file := filepath.Join(base, ".config", "tandem", "config.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"shell": {"budgetSeconds": -1}}`), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, mode); err != nil {
		t.Fatal(err)
	}
	return file
}

// readSettings reports whether doctor's output shows the planted value.
func readSettings(out string) bool { return strings.Contains(out, "shell.budgetSeconds") }

// An editor that starts tandem with only PATH in its environment must not
// move the user settings into the temporary directory, where another user
// can plant them: doctor names the passwd entry's home as their place, and
// a file planted in $TMPDIR/.config is not read. As root the test also
// makes a user whose passwd home holds a settings file, and shows it read.
func TestDoctorWithoutHomeUsesThePasswdHome(t *testing.T) {
	planted := t.TempDir()
	plantSettings(t, planted, 0o644)
	bin := builtTandem(t)
	env := []string{"PATH=/usr/bin:/bin", "TMPDIR=" + planted}
	var cred *syscall.Credential
	var home string
	if os.Getuid() == 0 {
		u, shared := newUser(t)
		cred = &syscall.Credential{Uid: u.uid, Gid: u.gid}
		home = u.home
		bin = shared(bin)
		plantSettings(t, home, 0o644)
		chownTree(t, home, u.uid, u.gid)
	} else {
		u, err := user.Current()
		if err != nil {
			t.Skip("no passwd entry for this user")
		}
		home = u.HomeDir
		// Keep doctor's state directory out of the real home.
		env = append(env, "XDG_STATE_HOME="+t.TempDir())
	}
	cmd := exec.Command(bin, "doctor")
	cmd.Dir = "/"
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	outb, _ := cmd.CombinedOutput()
	out := string(outb)
	want := filepath.Join(home, ".config", "tandem", "config.json")
	if !strings.Contains(out, want) || !strings.Contains(out, "HOME is unset: from the passwd entry of user") {
		t.Errorf("doctor must name %s and say it comes from the passwd entry:\n%s", want, out)
	}
	if strings.Contains(out, filepath.Join(planted, ".config")) {
		t.Errorf("doctor names settings in the temporary directory:\n%s", out)
	}
	if cred != nil && !readSettings(out) {
		t.Errorf("the settings in the passwd home were not read:\n%s", out)
	}
}

// testUser is a user made for one test.
type testUser struct {
	uid, gid uint32
	home     string
}

// newUser makes a user (root only) whose home is a fresh directory, and
// returns it with a function that copies a file where the user can run it.
func newUser(t *testing.T) (testUser, func(string) string) {
	t.Helper()
	base, err := os.MkdirTemp("", "tandem-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("tdoc%d", os.Getpid()%100000)
	home := filepath.Join(base, "home")
	if out, err := exec.Command("useradd", "-M", "-d", home, "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Skipf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	tu := testUser{uid: uint32(uid), gid: uint32(gid), home: home}
	chownTree(t, home, tu.uid, tu.gid)
	shared := func(src string) string {
		dst := filepath.Join(base, filepath.Base(src))
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		outf, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(outf, in); err != nil {
			t.Fatal(err)
		}
		if err := outf.Close(); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	return tu, shared
}

func chownTree(t *testing.T, root string, uid, gid uint32) {
	t.Helper()
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(uid), int(gid))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A settings file that another user could have written is not read, and
// doctor says which entry on its way is not private and how to fix it:
// a HOME anyone may write to, a file its group may write, a file of another
// user (only root can make one).
func TestDoctorNamesUntrustedSettings(t *testing.T) {
	cases := []struct {
		name   string
		make   func(t *testing.T, home string) (culprit, why string)
		asRoot bool
	}{
		{"a world-writable home", func(t *testing.T, home string) (string, string) {
			plantSettings(t, home, 0o644)
			if err := os.Chmod(home, 0o777); err != nil {
				t.Fatal(err)
			}
			return home, "can be written by others (mode 0777)"
		}, false},
		{"a group-writable file", func(t *testing.T, home string) (string, string) {
			return plantSettings(t, home, 0o664), "can be written by others (mode 0664)"
		}, false},
		{"another user's file", func(t *testing.T, home string) (string, string) {
			f := plantSettings(t, home, 0o644)
			if err := os.Chown(f, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return f, "belongs to another user (uid 65534)"
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.asRoot && os.Getuid() != 0 {
				t.Skip("only root can give a file to another user")
			}
			home := t.TempDir()
			culprit, why := c.make(t, home)
			out, code := runTandem(t, t.TempDir(), []string{"HOME=" + home, "XDG_CONFIG_HOME="}, "doctor")
			if code != 1 || readSettings(out) {
				t.Fatalf("doctor read an untrusted settings file (status %d):\n%s", code, out)
			}
			for _, want := range []string{
				"MISSING  user settings: not read: " + filepath.Join(home, ".config", "tandem", "config.json") + " is not trusted",
				culprit, why, "fix: make " + culprit + " yours and writable only by you",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("doctor output lacks %q\n%s", want, out)
				}
			}
		})
	}
}

// A log in a directory others can write is not opened: a link planted at
// its name would make tandem append to a file of the user's.
func TestLogIsNotOpenedWhereOthersCanWrite(t *testing.T) {
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "bashrc")
	if err := os.Symlink(target, filepath.Join(open, "lsp.log")); err != nil {
		t.Fatal(err)
	}
	w, shown, closeLog := openLog("tandem lsp", filepath.Join(open, "lsp.log"))
	defer closeLog()
	if w != os.Stderr || shown != "" {
		t.Fatalf("openLog opened %q in a world-writable directory", shown)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the planted link's target was written")
	}
	private := filepath.Join(t.TempDir(), "state")
	if _, shown, closeLog := openLog("tandem lsp", filepath.Join(private, "lsp.log")); shown == "" {
		t.Fatal("a log in a private directory was not opened")
	} else {
		closeLog()
	}
}
