package config

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeSettings writes a user settings file that widens the auto set, under
// base/.config/tandem, with the given mode.
func writeSettings(t *testing.T, base string, mode os.FileMode) string {
	t.Helper()
	file := filepath.Join(base, ".config", "tandem", "config.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"shell": {"autoEffects": ["read", "write", "exec", "net", "outside", "protected"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, mode); err != nil {
		t.Fatal(err)
	}
	return file
}

// loadsNothing: LoadUser refuses the file as untrusted, naming culprit, and
// no value of it applies.
func loadsNothing(t *testing.T, culprit string) {
	t.Helper()
	s := New()
	err := s.LoadUser()
	var ue *UntrustedError
	if !errors.As(err, &ue) || ue.Culprit != culprit {
		t.Fatalf("LoadUser() = %v, want it untrusted because of %s", err, culprit)
	}
	if !strings.HasSuffix(err.Error(), "or set HOME or the XDG directory to one of your own") {
		t.Errorf("the warning must end with what to do: %v", err)
	}
	if v, ok := s.User("shell.autoEffects"); ok {
		t.Fatalf("a file that is not trusted was read: shell.autoEffects = %s", v.Raw)
	}
}

// With HOME unset, the user's files are under the passwd entry's home, never
// under the temporary directory, where another user could plant them.
func TestNoHomeTakesThePasswdEntry(t *testing.T) {
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil {
		t.Skipf("this user has no passwd entry: %v", err)
	}
	planted := t.TempDir()
	writeSettings(t, planted, 0o644)
	t.Setenv("TMPDIR", planted)
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	if h, err := Home(); err != nil || h != filepath.Clean(u.HomeDir) {
		t.Fatalf("Home() = %q, %v; want the passwd home %q", h, err, u.HomeDir)
	}
	if want := filepath.Join(u.HomeDir, ".config", "tandem", "config.json"); UserFile() != want {
		t.Errorf("UserFile() = %q, want %q", UserFile(), want)
	}
	if want := filepath.Join(u.HomeDir, ".local", "state", "tandem"); StateDir() != want {
		t.Errorf("StateDir() = %q, want %q", StateDir(), want)
	}
	if o := UserFileOrigin(); !strings.Contains(o, "HOME is unset") || !strings.Contains(o, u.Username) {
		t.Errorf("UserFileOrigin() = %q, want it to say HOME is unset and whose passwd entry", o)
	}
	for _, p := range []string{UserFile(), StateDir()} {
		if strings.HasPrefix(p, planted) || strings.HasPrefix(p, os.TempDir()+"/") {
			t.Errorf("%s is under the temporary directory", p)
		}
	}
}

// A HOME that anyone can write to (no sticky bit) makes every file under it
// untrusted: another user could have swapped .config for their own.
func TestWorldWritableHomeIsNotTrusted(t *testing.T) {
	home := t.TempDir()
	writeSettings(t, home, 0o600)
	if err := os.Chmod(home, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	loadsNothing(t, home)

	// The same directory made sticky (like /tmp) keeps the user's own
	// entries the user's: the file is read.
	if err := os.Chmod(home, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	s := New()
	if err := s.LoadUser(); err != nil {
		t.Fatalf("under a sticky directory the user's own private file is trusted: %v", err)
	}
	if _, ok := s.User("shell.autoEffects"); !ok {
		t.Fatal("the trusted file was not read")
	}
}

// A settings file its group may write is not read.
func TestGroupWritableSettingsAreNotTrusted(t *testing.T) {
	home := t.TempDir()
	file := writeSettings(t, home, 0o620)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	loadsNothing(t, file)
}

// A settings directory reached through a link into a place others can
// write is judged where it really is.
func TestLinkIntoAnOpenPlaceIsNotTrusted(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	writeSettings(t, open, 0o600)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	if err := os.Symlink(filepath.Join(open, ".config"), filepath.Join(cfg, "xdg")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(cfg, "xdg"))
	loadsNothing(t, open)
}

// A settings file of another user is not read. Only root can give a file
// away; an ordinary user runs the other cases.
func TestAnotherUsersSettingsAreNotTrusted(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can make a file another user's")
	}
	home := t.TempDir()
	file := writeSettings(t, home, 0o644)
	if err := os.Chown(file, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	loadsNothing(t, file)
}

// The state directory (logs, chats, approved MCP servers) is made private,
// and refused where others can write.
func TestPrivateStateDir(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	t.Setenv("XDG_STATE_HOME", state)
	dir, err := PrivateStateDir()
	if err != nil || dir != filepath.Join(state, "tandem") {
		t.Fatalf("PrivateStateDir() = %q, %v", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the state directory must be made 0700: %v %v", fi.Mode(), err)
	}
	if err := os.Chmod(state, 0o777); err != nil {
		t.Fatal(err)
	}
	var ue *UntrustedError
	if _, err := PrivateStateDir(); !errors.As(err, &ue) || ue.Culprit != state {
		t.Fatalf("PrivateStateDir() under a world-writable directory = %v, want it untrusted", err)
	}
}
