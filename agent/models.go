package agent

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
)

// ModelInfo is what tandem knows of a model: its context window in tokens
// and its prices in US dollars per million tokens (zero when unknown: then
// no cost is shown, never a wrong one).
type ModelInfo struct {
	Window int   `json:"window"`
	Price  Price `json:"price"`
	// Images is whether the model takes images: the agent.models entry's
	// "images", else what the built-in rule knows of the name (imagesByName).
	Images *bool `json:"images,omitempty"`
}

// TakesImages reports whether the model takes images.
func (m ModelInfo) TakesImages() bool { return m.Images != nil && *m.Images }

// Price is dollars per million tokens of each kind.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// known is a small built-in table; the setting agent.models adds to it and
// overrides it (prices change; the user's word wins).
var known = map[string]ModelInfo{
	"anthropic/claude-opus-4-1":   {200_000, Price{15, 75, 1.5, 18.75}, nil},
	"anthropic/claude-sonnet-4-5": {200_000, Price{3, 15, 0.3, 3.75}, nil},
	"anthropic/claude-haiku-4-5":  {200_000, Price{1, 5, 0.1, 1.25}, nil},
	"openai/gpt-5":                {400_000, Price{1.25, 10, 0.125, 0}, nil},
	"openai/gpt-5-mini":           {400_000, Price{0.25, 2, 0.025, 0}, nil},
	"openai/gpt-4.1":              {1_047_576, Price{2, 8, 0.5, 0}, nil},
}

// Model looks up what is known of model ("PROVIDER/MODEL"): the user's own
// agent.models entry, else the built-in table, else nothing.
func Model(st *config.Settings, model string) (ModelInfo, error) {
	if v, ok := st.User("agent.models"); ok {
		var set map[string]ModelInfo
		if err := v.Decode(&set); err != nil {
			return ModelInfo{}, fmt.Errorf("agent.models must map \"PROVIDER/MODEL\" to {\"window\", \"price\"}: %w", err)
		}
		if m, ok := set[model]; ok {
			return withImages(m, model), nil
		}
	}
	return withImages(known[model], model), nil
}

// withImages fills in m.Images from the built-in rule when the user's entry
// does not say.
func withImages(m ModelInfo, model string) ModelInfo {
	if m.Images == nil {
		takes := imagesByName(model)
		m.Images = &takes
	}
	return m
}

// ModelNames is every model tandem knows, sorted: the built-in table and the
// user's agent.models (a model picker's choices).
func ModelNames(st *config.Settings) []string {
	names := map[string]bool{}
	for name := range known {
		names[name] = true
	}
	if st == nil {
		return slices.Sorted(maps.Keys(names))
	}
	if v, ok := st.User("agent.models"); ok {
		var set map[string]ModelInfo
		if v.Decode(&set) == nil {
			for name := range set {
				names[name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// Cost is what usage cost at these prices, in dollars.
func (p Price) Cost(u providers.Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead + float64(u.CacheCreate)*p.CacheWrite) / 1e6
}

// Known reports whether any price is set.
func (p Price) Known() bool { return p != Price{} }

// maxToolCalls is agent.maxToolCalls, else DefaultMaxToolCalls.
func maxToolCalls(st *config.Settings) (int, error) {
	v, ok := st.Get("agent.maxToolCalls")
	if !ok {
		return DefaultMaxToolCalls, nil
	}
	var n int
	if err := v.Decode(&n); err != nil || n <= 0 {
		return DefaultMaxToolCalls, fmt.Errorf("agent.maxToolCalls (%s) must be a whole number above 0; %d applies", v.Source, DefaultMaxToolCalls)
	}
	return n, nil
}

// idleTimeout is agent.idleTimeoutSeconds (any settings layer: it bounds
// waiting, it grants nothing), else providers.DefaultIdleTimeout.
func idleTimeout(st *config.Settings) (time.Duration, error) {
	v, ok := st.Get("agent.idleTimeoutSeconds")
	if !ok {
		return providers.DefaultIdleTimeout, nil
	}
	var secs float64
	if err := v.Decode(&secs); err != nil || secs <= 0 {
		return providers.DefaultIdleTimeout, fmt.Errorf("agent.idleTimeoutSeconds (%s) must be a number of seconds above 0; %v applies", v.Source, providers.DefaultIdleTimeout)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// SettingsProblems says what in st the agent refuses, each as one sentence
// naming the setting and what applies instead, for a front door to show.
func SettingsProblems(st *config.Settings) []error {
	var out []error
	if _, err := maxToolCalls(st); err != nil {
		out = append(out, err)
	}
	if _, err := compactAt(st); err != nil {
		out = append(out, err)
	}
	if _, err := idleTimeout(st); err != nil {
		out = append(out, err)
	}
	if _, err := hooks(st); err != nil {
		out = append(out, err)
	}
	if _, err := Model(st, ""); err != nil {
		out = append(out, fmt.Errorf("%w; the built-in table applies", err))
	}
	return out
}

// compactAt is agent.compactAt, else DefaultCompactAt.
func compactAt(st *config.Settings) (float64, error) {
	v, ok := st.Get("agent.compactAt")
	if !ok {
		return DefaultCompactAt, nil
	}
	var f float64
	if err := v.Decode(&f); err != nil || f <= 0 || f > 1 {
		return DefaultCompactAt, fmt.Errorf("agent.compactAt (%s) must be a share of the window above 0 and at most 1; %v applies", v.Source, DefaultCompactAt)
	}
	return f, nil
}
