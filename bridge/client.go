package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// ErrNoBridge means the command does not run inside a tandem session that
// has a bridge: the variables are unset, or the socket is gone.
var ErrNoBridge = errors.New("no tandem MCP bridge here")

// ErrSessionEnded means the session went away after the request was sent,
// before its whole reply arrived: the call may have run.
var ErrSessionEnded = errors.New("the tandem session ended before the reply was complete")

// Env is the bridge's socket and token, as a client finds them in its
// environment.
type Env struct {
	Socket string
	Token  string // empty: admitted by peer credentials (a discovery entry's bridge)
}

// EnvFromOS reads the bridge's variables from the process environment. If
// they are missing, it returns ErrNoBridge.
func EnvFromOS() (Env, error) { return envFrom(os.Getenv) }

// EnvFromList reads the bridge's variables from KEY=VALUE pairs, as an
// owner's registration gives them.
func EnvFromList(list []string) (Env, error) {
	vars := map[string]string{}
	for _, kv := range list {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return envFrom(func(k string) string { return vars[k] })
}

func envFrom(getenv func(string) string) (Env, error) {
	e := Env{Socket: getenv(EnvSocket), Token: getenv(EnvToken)}
	if e.Socket == "" || e.Token == "" {
		return e, fmt.Errorf("%w: %s and %s are not set (run the command in a tandem shell step or an editor terminal opened by tandem)", ErrNoBridge, EnvSocket, EnvToken)
	}
	return e, nil
}

// Send sends one request and returns the reply header and its bytes, all of
// them or an error: a caller never sees part of a result. It never retries,
// because a new connection is a new request that may run the call again.
// Cancelling ctx closes the connection, which withdraws the request.
func Send(ctx context.Context, env Env, req Request) (Header, []byte, error) {
	req.Version = WireVersion
	req.Token = env.Token
	line, err := json.Marshal(req)
	if err != nil {
		return Header{}, nil, err
	}
	if len(line)+1 > MaxRequestLine {
		return Header{}, nil, fmt.Errorf("the request is %d bytes; the bridge takes at most 1 MiB of arguments", len(line)+1)
	}
	conn, err := net.Dial("unix", env.Socket)
	if err != nil {
		return Header{}, nil, fmt.Errorf("%w: cannot reach the socket (%v); the session that started this command has ended", ErrNoBridge, errors.Unwrap(err))
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, func() { _ = conn.Close() })()
	// A failed write is not the end: a bridge at its connection limit
	// answers busy and closes before reading the request, and that answer
	// is still there to read.
	_, _ = conn.Write(append(line, '\n'))
	r := bufio.NewReaderSize(conn, 64<<10)
	hl, err := readLine(r, MaxHeaderLine)
	if err != nil {
		return Header{}, nil, ErrSessionEnded
	}
	var h Header
	if err := json.Unmarshal(hl, &h); err != nil || h.Status == "" || h.Bytes < 0 || h.Bytes > MaxResult {
		return Header{}, nil, fmt.Errorf("the bridge sent a reply this client does not understand; it may be another tandem version")
	}
	if uc, ok := conn.(*net.UnixConn); ok && h.Bytes > 1<<20 {
		_ = uc.SetReadBuffer(4 << 20)
	}
	body := resultBuffer(h.Bytes)
	if _, err := io.ReadFull(r, body); err != nil {
		return Header{}, nil, ErrSessionEnded
	}
	// The bridge closes the connection after it freed the request's slot:
	// waiting for that close means a caller's next request never meets its
	// own previous one still holding a slot.
	_, _ = r.Discard(1)
	return h, body, nil
}
