package approvals

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// The home directory outside the workspace is held back by default: a step
// granted neither outside nor secret reads only the roots, the scratch
// places and the readable places below, so a credential store no list
// names stays out of its reach too. What a step that is not held back
// reads there is judged outside (Judgement.Private), so the gate asks
// exactly where the kernel would refuse.

// homeReadable are what everyday work reads in the home: the toolchains,
// their caches and the configuration every run of them reads.
// docs/settings.md says why each is here. None holds a credential store
// that stores.go lists, except as a part carved out and kept secret
// (~/.cargo/credentials), and none is tandem's own state.
var homeReadable = []string{
	// git's own configuration, read by every git command
	".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes",
	// Go: the GOPATH (binaries, sources) and the settings of go env -w
	"go", ".config/go",
	// Rust
	".cargo", ".rustup",
	// JavaScript: npm's cache, and the runtimes and their managers
	".npm", ".nvm", ".volta", ".bun", ".deno",
	// Python and the other version managers
	".pyenv", ".rbenv", ".asdf", ".sdkman",
	// the user's programs and libraries (pip --user, pipx, uv, pnpm, mise)
	".local/bin", ".local/lib", ".local/share/pipx", ".local/share/uv", ".local/share/pnpm",
	".local/share/virtualenvs", ".local/share/mise",
	// the caches, Linux's and others' (pre-commit, pip on Linux)
	".cache",
	// Java: the dependencies Maven and Gradle fetched, Gradle's wrappers
	".m2/repository", ".gradle/caches", ".gradle/wrapper",
}

// envReadable are variables that move a toolchain's home away from its
// default in the home.
var envReadable = []string{"GOPATH", "GOROOT", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "VOLTA_HOME",
	"BUN_INSTALL", "DENO_DIR", "PYENV_ROOT", "RBENV_ROOT", "ASDF_DATA_DIR", "SDKMAN_DIR", "PNPM_HOME"}

// readablePlaces are the readable places of a home: homeReadable, the
// files git's global config includes, the places envReadable names, every
// directory on PATH (the programs the user runs), and extra (the user's
// shell.readableDirs).
func readablePlaces(home string, env map[string]string, extra []string) []string {
	out := make([]string, 0, len(homeReadable)+len(extra)+8)
	for _, r := range homeReadable {
		out = append(out, filepath.Join(home, r))
	}
	for _, c := range []string{".gitconfig", ".config/git/config"} {
		out = append(out, gitIncludes(home, filepath.Join(home, c))...)
	}
	for _, name := range envReadable {
		out = append(out, filepath.SplitList(env[name])...)
	}
	out = append(out, filepath.SplitList(env["PATH"])...)
	out = append(out, extra...)
	// A place that is the home or holds it would open the whole home:
	// that is what outside grants.
	kept := out[:0]
	for _, d := range out {
		if filepath.IsAbs(d) && !Under(home, filepath.Clean(d)) {
			kept = append(kept, d)
		}
	}
	return kept
}

// HomeEntries returns the user's home directory, as written and as real
// path: a step not granted outside or secret reads in it only the roots,
// the scratch places and Readable. It returns none when there is no home
// to hold back (none is known, or it is /).
func (p *Policy) HomeEntries() []string { return pathsOf(p.homes) }

// Readable returns the places in the home a step may read without the
// outside effect (see homeReadable), as written and as real paths.
func (p *Policy) Readable() []string { return pathsOf(p.readable) }

func pathsOf(es []entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.path
	}
	return out
}

// private reports whether path lies in the home, held back from a step
// without outside: not in a root, a scratch place or a readable place.
func (p *Policy) private(path string) bool {
	return p.covered(p.homes, path) && !p.inside(path) && !p.inScratch(path) && !p.covered(p.readable, path)
}

// gitFileKeys are the keys of a git config, by section, that name a file
// git reads as part of its configuration.
var gitFileKeys = map[string][]string{"include": {"path"}, "includeif": {"path"}, "core": {"excludesfile", "attributesfile"}}

// gitIncludes are the files a git config includes (include.path,
// includeIf.*.path) or names for every command (core.excludesFile,
// core.attributesFile): a global config that includes ~/.gitconfig.local,
// unreadable, would stop every git command. One level deep; a path is
// taken from the config's directory, or the home with "~/".
func gitIncludes(home, config string) []string {
	b, err := os.ReadFile(config)
	if err != nil || len(b) > 1<<20 {
		return nil
	}
	cfg := gitconfig.New()
	if gitconfig.NewDecoder(bytes.NewReader(b)).Decode(cfg) != nil {
		return nil // git refuses such a file too: it reads nothing it names
	}
	var out []string
	for _, section := range cfg.Sections {
		for _, key := range gitFileKeys[strings.ToLower(section.Name)] {
			values := section.Options.GetAll(key)
			for _, sub := range section.Subsections {
				values = append(values, sub.Options.GetAll(key)...)
			}
			for _, value := range values {
				if rest, ok := strings.CutPrefix(value, "~/"); ok {
					value = filepath.Join(home, rest)
				} else if !filepath.IsAbs(value) {
					value = filepath.Join(filepath.Dir(config), value)
				}
				out = append(out, value)
			}
		}
	}
	return out
}
