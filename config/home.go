package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// This file owns where the user's own files are: the home directory, and
// tandem's configuration and state directories under it. Every other
// package asks here, so the settings tandem trusts, the logs and chats it
// writes and the secrets the path policy names agree on one home.

// Home is the user's home directory: $HOME when it is an absolute path,
// else the home of the user's entry in the passwd database. An editor may
// start tandem with nothing but PATH in its environment (avante.nvim does);
// the user's trusted files must stay where they are then, not move to the
// temporary directory, where any local user can plant them. When neither
// is known, Home returns "" and the reason.
func Home() (string, error) {
	home, _, err := homeAndOrigin()
	return home, err
}

// homeAndOrigin returns Home and says in words where it came from.
func homeAndOrigin() (home, origin string, err error) {
	if h := os.Getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Clean(h), "from $HOME", nil
	}
	// os/user reads /etc/passwd itself when built without cgo.
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return "", "", fmt.Errorf("tandem has no home directory: HOME is unset and user id %d has no home in the passwd database; set HOME to your home directory", os.Getuid())
	}
	return filepath.Clean(u.HomeDir), fmt.Sprintf("HOME is unset: from the passwd entry of user %s", u.Username), nil
}

// Dir returns tandem's user configuration directory:
// $XDG_CONFIG_HOME/tandem, else ~/.config/tandem; empty when there is no
// home.
func Dir() string { d, _, _ := xdg("XDG_CONFIG_HOME", ".config"); return d }

// StateDir returns where tandem keeps logs, chats and the MCP servers the
// user approved: $XDG_STATE_HOME/tandem, else ~/.local/state/tandem; empty
// when there is no home.
func StateDir() string {
	d, _, _ := xdg("XDG_STATE_HOME", filepath.Join(".local", "state"))
	return d
}

// UserFile returns the path of the user config file; empty when there is
// no home.
func UserFile() string {
	if d := Dir(); d != "" {
		return filepath.Join(d, "config.json")
	}
	return ""
}

// UserFileOrigin says in words why the user config file is where it is, for
// tandem doctor.
func UserFileOrigin() string {
	_, origin, err := xdg("XDG_CONFIG_HOME", ".config")
	if err != nil {
		return err.Error()
	}
	return origin
}

func xdg(env, fallback string) (dir, origin string, err error) {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return filepath.Join(d, "tandem"), "from $" + env, nil
	}
	home, origin, err := homeAndOrigin()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(home, fallback, "tandem"), origin, nil
}

// PrivateStateDir returns StateDir, made if missing (0700) once Trusted
// holds for it: logs, chats and the approved MCP servers are written and
// read back there.
func PrivateStateDir() (string, error) {
	dir, _, err := xdg("XDG_STATE_HOME", filepath.Join(".local", "state"))
	if err != nil {
		return "", err
	}
	if err := MakePrivateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// MakePrivateDir makes dir (0700) where missing, once Trusted holds for the
// way to it, and checks Trusted again for what is there: nothing is made in
// a place others can write, and nothing is used that they could have made.
func MakePrivateDir(dir string) error {
	if err := Trusted(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return Trusted(dir)
}

// UntrustedError is why a file or directory of the user's is not trusted:
// it, or a directory on its way, belongs to another user or can be written
// by others, who could then have put anything there.
type UntrustedError struct {
	Path    string // the file or directory that was to be used
	Culprit string // the entry on its way that is not private
	Reason  string
}

func (e *UntrustedError) Error() string {
	return e.Problem() + "; tandem does not use it — " + e.Fix()
}

// Problem returns what is wrong, without the fix.
func (e *UntrustedError) Problem() string {
	where := e.Culprit
	if e.Culprit != e.Path {
		where = fmt.Sprintf("%s (on the way to %s)", e.Culprit, e.Path)
	}
	return fmt.Sprintf("%s is not trusted: %s %s, so another user could have written what is there", e.Path, where, e.Reason)
}

// Fix returns what the user can do.
func (e *UntrustedError) Fix() string {
	return fmt.Sprintf("make %s yours and writable only by you (chown, chmod go-w), or set HOME or the XDG directory to one of your own", e.Culprit)
}

// Trusted reports whether only the user (or root) can have written path:
// path and every directory on its way to /, as written and through its
// symlinks, must belong to the user or root and be writable by nobody else,
// as ssh requires of its config. A directory writable by others is allowed
// only with the sticky bit (/tmp): there nobody else can rename or replace
// an entry of the user's. Parts that do not exist are no reason to
// distrust; the answer is nil or an *UntrustedError (or the error of a
// lookup that failed otherwise).
func Trusted(path string) error {
	path = filepath.Clean(path)
	if err := trustedWay(path, path); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case real != path:
		return trustedWay(path, real)
	}
	return nil
}

// trustedWay checks way and each of its ancestors, without following
// links: a link is judged by its owner (its mode means nothing), its target
// by the caller through the real path.
func trustedWay(path, way string) error {
	uid := uint32(os.Getuid())
	for p := way; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if st, ok := statOf(fi); ok {
			untrusted := func(reason string) error { return &UntrustedError{Path: path, Culprit: p, Reason: reason} }
			mode := fi.Mode()
			switch {
			case st.Uid != uid && st.Uid != 0:
				return untrusted(fmt.Sprintf("belongs to another user (uid %d)", st.Uid))
			case mode&fs.ModeSymlink != 0:
			case mode.Perm()&0o022 != 0 && !(mode.IsDir() && mode&fs.ModeSticky != 0):
				return untrusted(fmt.Sprintf("can be written by others (mode %04o)", mode.Perm()))
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func statOf(fi fs.FileInfo) (*syscall.Stat_t, bool) {
	if fi == nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}

// ReadTrusted reads a file of the user's that tandem trusts (its settings,
// its instructions) once Trusted holds for it.
func ReadTrusted(path string) ([]byte, error) {
	if err := Trusted(path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}
