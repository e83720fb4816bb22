package core_test

import (
	"fmt"

	"github.com/tandemdev/tandem/bridge/core"
)

// One request from start to end, as the shell drives it.
func ExampleState_Step() {
	s, _ := core.New(core.DefaultCapacity)
	show := func(out core.Effects) {
		for _, e := range out.List() {
			switch e.Kind {
			case core.Authorize, core.Call:
				fmt.Printf("%s id=%d owner=%d\n", e.Kind, e.ID, e.Owner)
			case core.Reply:
				fmt.Printf("%s id=%d %s\n", e.Kind, e.ID, e.Outcome)
			case core.Refuse:
				fmt.Printf("%s %s\n", e.Kind, e.Reason)
			case core.Log:
				fmt.Printf("%s id=%d %s\n", e.Kind, e.ID, e.Log)
			}
		}
	}
	token := core.Token{7} // the shell uses 32 bytes from crypto/rand
	show(s.Step(core.Event{Kind: core.Request, Token: token, Version: core.ProtocolVersion}))
	show(s.Step(core.Event{Kind: core.Started}))
	show(s.Step(core.Event{Kind: core.OwnerAdded, Owner: 1, Token: token}))
	show(s.Step(core.Event{Kind: core.Request, Token: core.Token{8}, Version: 99}))
	show(s.Step(core.Event{Kind: core.Request, Token: token, Version: 99}))
	show(s.Step(core.Event{Kind: core.Request, Token: token, Version: core.ProtocolVersion}))
	show(s.Step(core.Event{Kind: core.Authorized, ID: 0, Allow: true}))
	show(s.Step(core.Event{Kind: core.CallFinished, ID: 0, Outcome: core.OK}))
	show(s.Step(core.Event{Kind: core.ReplyDone, ID: 0}))
	show(s.Step(core.Event{Kind: core.CallFinished, ID: 0, Outcome: core.OK}))
	fmt.Println("held:", s.Held())
	// Output:
	// refuse closed
	// refuse unauthorized
	// refuse unsupported_version
	// authorize id=0 owner=1
	// call id=0 owner=1
	// reply id=0 ok
	// log id=0 stale
	// held: 0
}
