package lspserver

import (
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/tandemdev/tandem/tools"
)

// tandem's own JSON-RPC error codes, in the range JSON-RPC leaves to servers.
// Every error tandem sends also carries data {"code": NAME}, a stable name a
// client can match on.
const (
	CodeMessageTooLarge jsonrpc2.Code = -32050
	CodeUnknownSession  jsonrpc2.Code = -32051
	// CodeAgent is the error of an agent session method the agent refused
	// (no model reachable, a turn already running, an unknown session);
	// the message says what to do. It is -32053 because -32052 is
	// CodeApprovalGone.
	CodeAgent jsonrpc2.Code = -32053
)

// Names carried in an error's data.code.
const (
	KindMalformedFrame = "malformed_frame" // the framing headers were not LSP's
	KindBadJSON        = "bad_json"        // the body is not JSON
	KindInvalidRequest = "invalid_request" // JSON, but not a JSON-RPC 2.0 request
	KindTooLarge       = "too_large"       // over the incoming message limit
	KindNotInitialized = "not_initialized"
	KindShuttingDown   = "shutting_down"
	KindUnknownMethod  = "unknown_method"
	KindInvalidParams  = "invalid_params"
	KindUnknownSession = "unknown_session"
	KindCancelled      = "cancelled"
	KindInternal       = "internal"
	KindAgent          = "agent"
)

// rpcError builds a JSON-RPC error with tandem's kind in data.code.
func rpcError(code jsonrpc2.Code, kind, format string, args ...any) *jsonrpc2.Error {
	e := jsonrpc2.Errorf(code, format, args...)
	data, _ := json.Marshal(map[string]string{"code": kind})
	raw := json.RawMessage(data)
	e.Data = &raw
	return e
}

// invalidParams is the error for params that do not decode into what method
// takes.
func invalidParams(method string, err error) *jsonrpc2.Error {
	return rpcError(jsonrpc2.InvalidParams, KindInvalidParams,
		"The params of %s are invalid: %v. Send them as docs/protocol.md describes.", method, err)
}

func decodeParams(method string, raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams(method, errors.New(tools.DecodeProblem("the params", err)))
	}
	return nil
}

// errorf builds the internal error for a failure tandem could not avoid
// (I/O, a bug).
func errorf(format string, args ...any) *jsonrpc2.Error {
	return rpcError(jsonrpc2.InternalError, KindInternal, "%s", fmt.Sprintf(format, args...))
}
