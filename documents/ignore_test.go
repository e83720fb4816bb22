package documents

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The fixture of nested ignore files, negations, info/exclude and a global
// excludes file; git itself is the oracle.
var ignoreFixture = map[string]string{
	".gitignore": "# comment\n*.log\n!keep.log\nbuild/\n/rootonly.txt\ndocs/**/*.tmp\n[!a]x.dat\ntrailing.txt   \n" +
		// Under core.ignorecase git compares an escaped letter and a class's
		// members as written against the name in lower case: the first two
		// ignore nothing then, while a range takes either case.
		"\\Mx\n[P]x\n[B-B]bc\n",
	"a/.gitignore":       "*.txt\n!important.txt\nsub/\n",
	"a/b/.gitignore":     "!*.log\nnested.md\n",
	".git/info/exclude":  "excluded.c\n",
	"home/.gitconfig":    "[core]\n\texcludesFile = ~/global-ignore\n",
	"home/global-ignore": "*.bak\n",
}

var ignoreFixtureFiles = []string{
	"keep.log", "x.log", "a/x.log", "a/b/y.log", "a/b/keep.log", "build/out.o", "build/keep.log", "a/build/out.o",
	"rootonly.txt", "a/rootonly.txt", "docs/q/r/s.tmp", "docs/s.tmp", "docs/s.md", "a/t.txt", "a/important.txt",
	"a/c/u.txt", "a/sub/v.go", "a/b/sub/w.go", "a/b/nested.md", "nested.md", "excluded.c", "a/excluded.c",
	"z.bak", "a/z.bak", "bx.dat", "ax.dat", "plain.go", "a/b/c/deep.go", "trailing.txt", "d/trailing.txt",
	// ignored only without regard to case (core.ignorecase)
	"X.LOG", "KEEP.LOG", "Build/gen.o", "RootOnly.TXT", "a/T.TXT", "Z.Bak",
	"mx", "Mx", "px", "Px", "bbc", "Bbc",
}

func TestIgnoreMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to check ignore semantics against git itself")
	}
	base := t.TempDir()
	repo, home := filepath.Join(base, "repo"), filepath.Join(base, "repo", "home")
	// The user's git configuration is the fixture's, for git and tandem alike.
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	must(t, os.MkdirAll(repo, 0o755))
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	for name, content := range ignoreFixture {
		writeFile(t, repo, name, []byte(content))
	}
	for _, name := range ignoreFixtureFiles {
		writeFile(t, repo, name, []byte("x\n"))
	}
	// As on a case-sensitive file system, then as git sets it up on macOS's.
	for _, fold := range []string{"false", "true"} {
		git("config", "core.ignorecase", fold)
		ignoredLikeGit(t, repo, git("ls-files", "--others", "--ignored", "--exclude-standard"), "core.ignorecase "+fold)
	}
}

// ignoredLikeGit fails t unless the files a glob of repo leaves out are
// those git's listing names.
func ignoredLikeGit(t *testing.T, repo, gitListing, what string) {
	gitIgnored := strings.Fields(gitListing)
	sort.Strings(gitIgnored)

	rep, err := GlobSearch(context.Background(), []string{repo}, GlobRequest{Pattern: "**", Limit: MaxGlobPage})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, p := range rep.Page {
		listed[p.Show] = true
	}
	var ours []string
	must(t, filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && !listed[filepath.ToSlash(rel)] {
			ours = append(ours, filepath.ToSlash(rel))
		}
		return nil
	}))
	sort.Strings(ours)
	if strings.Join(ours, "\n") != strings.Join(gitIgnored, "\n") {
		t.Fatalf("%s: tandem ignores:\n  %s\ngit ignores:\n  %s", what, strings.Join(ours, "\n  "), strings.Join(gitIgnored, "\n  "))
	}
	if len(gitIgnored) < 15 {
		t.Fatalf("%s: the fixture ignores only %d files; it no longer exercises the rules", what, len(gitIgnored))
	}
}

// .ignore files rank above .gitignore in the same directory, and apply
// outside a git repository too, as does .gitignore.
func TestDotIgnoreAndNoRepository(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".gitignore", []byte("*.log\n"))
	writeFile(t, dir, ".ignore", []byte("!wanted.log\n*.gen.go\n"))
	for _, name := range []string{"a.log", "wanted.log", "x.gen.go", "x.go", "sub/b.log", "sub/y.gen.go"} {
		writeFile(t, dir, name, []byte("x\n"))
	}
	rep, err := GlobSearch(context.Background(), []string{dir}, GlobRequest{Pattern: "**/*.{go,log}"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rep.Page {
		got = append(got, p.Show)
	}
	sort.Strings(got)
	if strings.Join(got, " ") != "wanted.log x.go" {
		t.Fatalf("listed %v; want [wanted.log x.go]", got)
	}
	// A search that starts below the root still obeys the root's files.
	rep, err = GlobSearch(context.Background(), []string{dir}, GlobRequest{Pattern: "*", Path: "sub"})
	if err != nil || rep.Total != 0 {
		t.Fatalf("glob in sub listed %+v (%v); the root's ignore files apply there", rep.Page, err)
	}
}

// A directory the rules exclude is still searched when it is named: the
// model asked for it.
func TestNamedIgnoredDirectoryIsSearched(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".gitignore", []byte("build/\n"))
	writeFile(t, dir, "build/out/gen.go", []byte("needle\n"))
	writeFile(t, dir, "build/.gitignore", []byte("*.tmp\n"))
	writeFile(t, dir, "build/x.tmp", []byte("needle\n"))
	rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: "needle", Path: "build"})
	if err != nil || rep.FilesMatched != 1 || rep.Page[0].Show != "build/out/gen.go" || rep.Tally.Count[ClassIgnoredFile] != 1 {
		t.Fatalf("grep in a named ignored directory: %+v %v", rep, err)
	}
	if rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: "needle"}); err != nil || rep.FilesMatched != 0 {
		t.Fatalf("from the root the ignored directory stays out: %+v %v", rep, err)
	}
}
