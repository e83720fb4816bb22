package mcpclient

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListTimeout bounds a listing of every server as a whole: the servers start
// together, and one that is slow to start keeps the others waiting no
// longer than this.
const ListTimeout = StartTimeout

// Listing is one server's tools, or why there are none.
type Listing struct {
	Server string
	Tools  []*mcp.Tool
	Err    error
}

// ListAll lists the tools of the named servers at once, starting those not
// running, and returns within timeout, in the order of names. A server that
// has not answered by then is an error; its start goes on, so a later
// listing finds it running.
func ListAll(ctx context.Context, names []string, tools func(context.Context, string) ([]*mcp.Tool, error), timeout time.Duration) []Listing {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		i int
		Listing
	}
	answers := make(chan answer, len(names)) // a late answer never blocks
	for i, name := range names {
		go func() {
			ts, err := tools(ctx, name)
			answers <- answer{i, Listing{Server: name, Tools: ts, Err: err}}
		}()
	}
	out := make([]Listing, len(names))
	answered := 0
wait:
	for answered < len(names) {
		select {
		case a := <-answers:
			out[a.i] = a.Listing
			answered++
		case <-ctx.Done():
			break wait
		}
	}
	for i, name := range names {
		if out[i].Server == "" {
			out[i] = Listing{Server: name, Err: fmt.Errorf("MCP server %q did not list its tools within %s; it may still be starting, so list again in a moment", name, timeout)}
		}
	}
	return out
}
