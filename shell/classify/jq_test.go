package classify

import (
	"testing"

	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// jq reads its inputs, --slurpfile and --rawfile files and a -f program;
// a program that imports modules, or one from a file, is exec, and the
// module paths it names are judged in each place jq searches. split
// --filter runs a shell command, judged as one.
func TestJqAndSplit(t *testing.T) {
	f := corpus.NewFixture(t)
	key := f.Home + "/.ssh/id_ed25519"
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"jq", ".a", "README.md"}, "read"},
		{[]string{"jq", "-n", "--arg", "k", key, "$k"}, "read"}, // a string, not a file
		{[]string{"jq", "-n", "--rawfile", "k", key, "$k"}, "read+secret"},
		{[]string{"jq", "-r", ".", key}, "read+secret"},
		{[]string{"jq", "-f", "prog.jq", "README.md"}, "read+exec"},
		{[]string{"jq", "--args", "-n", "$ARGS", key}, "read"},
		{[]string{"jq", "-n", `include "lib"; .`}, "read+exec"},
		{[]string{"jq", "-L", f.WS, "-n", `import "src/a" as a; .`}, "read+exec"},
		{[]string{"jq", "-nL" + f.Home, `import ".ssh/id_ed25519" as $k; $k`}, "read+exec+secret"},
		{[]string{"split", "-l", "10", "README.md", "part-"}, "write"},
		{[]string{"split", "--filter=gzip > $FILE.gz", "README.md"}, "write+exec"},
		{[]string{"split", "--filter", "cat > " + f.Out + "/x", "README.md"}, "read+write+outside"},
	} {
		if got := classifyIn(f, c.argv...); got.Effects.String() != c.want {
			t.Errorf("%q: %v, want %s (paths %+v)", c.argv, got.Effects, c.want, got.Paths)
		}
	}
}
