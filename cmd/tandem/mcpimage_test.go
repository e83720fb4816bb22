package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/mcpclient"
)

// `tandem mcp call srv/tool '{}' > out.png` writes the image's bytes when
// the image is the result's only content.
func TestMCPCall_an_image_redirected_to_a_file_is_its_bytes(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0, '\n', 0xff, '{'}, 1000)...)
	s := mcp.NewServer(&mcp.Implementation{Name: "shots"}, nil)
	s.AddTool(&mcp.Tool{Name: "shot", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png"}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cfg := mcpclient.Config{Servers: map[string]mcpclient.Def{"shots": {Name: "shots", Type: "http", URL: srv.URL}}}
	b, err := bridge.New(mcpclient.NewManager(cfg, mcpclient.Options{}), bridge.Settings{AutoAllow: []string{"shots/*"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	reg, err := b.AddOwner(bridge.Owner{Session: "s", Asker: approvals.Nobody})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "out.png"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(builtTandem(t), "mcp", "call", "shots/shot", "{}")
	cmd.Env = append(os.Environ(), reg.Env()...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	out.Close()
	got, _ := os.ReadFile(out.Name())
	if !bytes.Equal(got, png) {
		t.Fatalf("out.png holds %d bytes, not the image's %d", len(got), len(png))
	}
}
