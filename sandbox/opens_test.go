package sandbox

import (
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// What a refused path needs is what the step's plan and the plans of wider
// grants say: the fewest effects that open it, secret last among as many.
func TestOpensNamesTheFewestEffectsThePlanNeeds(t *testing.T) {
	pl := places
	pl.Home = []string{"/h/u"}
	all := approvals.Of(approvals.Outside, approvals.Protected, approvals.Secret)
	guarded := Guarded{ReadOnly: []string{"/h/u/ws/.git/config"}}
	for _, c := range []struct {
		path string
		held approvals.Effects
		want Access
	}{
		{"/h/u/src", all, Access{Need: approvals.Of(approvals.Outside)}},                                         // a private place: a read
		{"/h/u/.ssh", all, Access{Need: approvals.Of(approvals.Secret)}},                                         // a secret: outside does not open it
		{"/h/other/made", all, Access{Need: approvals.Of(approvals.Outside), Write: true}},                       // a new file outside the home
		{"/h/u/go", all, Access{Need: all, Write: true}},                                                         // a new name beside the home's secret and protected places
		{"/h/u/go", approvals.Of(approvals.Outside), Access{Need: approvals.Of(approvals.Outside), Write: true}}, // the others granted, outside alone opens it
		{"/h/u/ws/main.go", all, Access{}},                                                                       // the workspace: not the sandbox's doing
		{"/dev/null", all, Access{}},                                                                             // a device every step has
		{"/usr/bin/tool", all, Access{Need: approvals.Of(approvals.Protected), Write: true}},                     // a protected PATH directory: protected grants it alone
		{"/h/u/ws/.git/config", all, Access{Need: approvals.Of(approvals.Protected), Write: true}},               // guarded by the view, not the plan
		{"/h/u/ws/.git/config", approvals.Of(approvals.Outside), Access{}},                                       // protected was granted
	} {
		if got := Opens(pl, guarded, c.held, c.path, home.list); got != c.want {
			t.Errorf("%s held from %s: got %+v, want %+v", c.path, c.held, got, c.want)
		}
	}
}
