package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
)

// The methods tandem adds to ACP's session methods, named as ACP's
// extension rules say; both front doors serve them through Extension.
const (
	MethodCheckpoints   = "_tandem/checkpoints"
	MethodRestore       = "_tandem/restore"
	MethodDeleteSession = "_tandem/deleteSession"
	MethodModels        = "_tandem/models"
	MethodSetKey        = "_tandem/setKey"
	MethodSetModel      = "_tandem/setModel"
	MethodChanges       = "_tandem/changes"
	MethodUndo          = "_tandem/undo"
	MethodKeep          = "_tandem/keep"
)

// ErrUnknownExtension is a `_…` method tandem does not serve.
var ErrUnknownExtension = errors.New("unknown extension method")

// ParamsError is an extension call whose params do not fit its method.
type ParamsError struct {
	Method string
	Err    error
}

func (e *ParamsError) Error() string {
	return fmt.Sprintf("the params of %s do not fit: %v", e.Method, e.Err)
}

// RestoreReply is what _tandem/restore answers.
type RestoreReply struct {
	Text    string   `json:"text"`
	IsError bool     `json:"isError"`
	Files   []string `json:"files"` // the files put back
	Code    string   `json:"code,omitempty"`
	// The turn the restore was recorded as, to restore to undo it; absent
	// when it changed no file.
	Turn *int `json:"turn,omitempty"`
}

// reply is a restore's answer.
func reply(r Restored) RestoreReply {
	out := RestoreReply{Text: r.Text, IsError: r.IsError, Files: []string{}, Code: string(r.Code)}
	for _, fc := range r.Changes {
		out.Files = append(out.Files, fc.Path)
	}
	if r.Turn >= 0 {
		out.Turn = &r.Turn
	}
	return out
}

// Extension serves one of tandem's extension methods. A ParamsError is the
// caller's params; ErrUnknownExtension a method not served; any other
// error the agent's refusal, saying what to do.
func (s *Service) Extension(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID acp.SessionId `json:"sessionId"`
		Turn      *int          `json:"turn"`
		// Restore a file changed since the agent wrote it around those
		// changes, instead of keeping it.
		AroundLaterChanges bool `json:"aroundLaterChanges"`
		// The setup's: a provider, its key, a model.
		Provider *ProviderSetup `json:"provider"`
		Key      string         `json:"key"`
		Model    string         `json:"model"`
		// _tandem/undo: the one file, and its hunks, to undo.
		Path  string `json:"path"`
		Hunks []int  `json:"hunks"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &ParamsError{method, err}
		}
	}
	switch method {
	case MethodCheckpoints:
		cps, err := s.Checkpoints(p.SessionID)
		if err != nil {
			return nil, err
		}
		if cps == nil {
			cps = []Checkpoint{}
		}
		return map[string]any{"checkpoints": cps}, nil
	case MethodRestore:
		if p.Turn == nil {
			return nil, &ParamsError{method, fmt.Errorf("turn is missing; %s lists the turns", MethodCheckpoints)}
		}
		res, err := s.Restore(ctx, p.SessionID, *p.Turn, p.AroundLaterChanges)
		if err != nil {
			return nil, err
		}
		return reply(res), nil
	case MethodChanges, MethodUndo, MethodKeep:
		if p.Turn == nil {
			return nil, &ParamsError{method, fmt.Errorf("turn is missing; %s lists the turns", MethodCheckpoints)}
		}
		sv, err := s.session(p.SessionID)
		if err != nil {
			return nil, err
		}
		if method == MethodKeep {
			if err := sv.chat.Keep(*p.Turn, p.Path, p.Hunks); err != nil {
				return nil, err
			}
			return map[string]any{}, nil
		}
		if method == MethodUndo {
			res, err := sv.chat.Undo(ctx, *p.Turn, p.Path, p.Hunks)
			if err != nil {
				return nil, err
			}
			return reply(res), nil
		}
		files, err := sv.chat.Changes(*p.Turn)
		if err != nil {
			return nil, err
		}
		return map[string]any{"turn": *p.Turn, "files": files}, nil
	case MethodDeleteSession:
		if err := s.Delete(p.SessionID); err != nil {
			return nil, err
		}
		return map[string]any{}, nil
	case MethodModels, MethodSetKey:
		if p.Provider == nil {
			return nil, &ParamsError{method, fmt.Errorf("provider is missing; name one, e.g. {\"name\": \"anthropic\"}")}
		}
		if method == MethodSetKey {
			if err := s.SetKey(p.SessionID, *p.Provider, p.Key); err != nil {
				return nil, err
			}
			return map[string]any{}, nil
		}
		list, err := s.Models(ctx, p.SessionID, *p.Provider)
		if err != nil {
			return nil, err
		}
		if list == nil {
			list = []providers.Listing{}
		}
		return map[string]any{"models": list}, nil
	case MethodSetModel:
		opts, err := s.SetUserModel(p.SessionID, p.Model, p.Provider)
		if err != nil {
			return nil, err
		}
		return map[string]any{"configOptions": opts}, nil
	}
	return nil, ErrUnknownExtension
}
