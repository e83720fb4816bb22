package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/refusal"
)

// A prompt that starts with "/NAME" runs the command NAME: a built-in, or a
// prompt file — .tandem/commands/NAME.md in the workspace or
// commands/NAME.md in the user's tandem directory, whose text (with
// $ARGUMENTS replaced by the rest of the line) is sent as the prompt.
// "//text" sends "/text" as it is; a slash not followed by a name and then a
// space or the end (a path such as /usr/bin) is no command.

// CommandsDir is where a workspace's and the user's prompt files are, under
// the workspace root and under the user's tandem directory (config.Dir).
const CommandsDir = "commands"

// commandName is a name a prompt file or a typed command may have.
var commandName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })

// command is one command the session offers.
type command struct {
	name, description, hint string
	file                    string // a prompt file's path; empty for a built-in
}

// builtins are the commands tandem itself serves; a prompt file of the same
// name is not offered (the built-in is what the user expects to run).
var builtins = []command{
	{name: "compact", description: "Summarise the conversation so far into one message, to free the context window"},
	{name: "cost", description: "Show this chat's context use and cost so far"},
	{name: "init", description: "Write a starting AGENTS.md from what the agent reads of the workspace (the write is asked like any other)"},
	{name: "model", description: "Switch the model, or list the models without a name", hint: "PROVIDER/MODEL"},
	{name: "plan", description: "Turn plan mode on or off: only reading runs while it is on"},
	{name: "restore", description: "Put the files back as they were before turn N's changes", hint: "N"},
}

// initPrompt is what /init sends: a turn the model runs with its tools.
const initPrompt = `Write a starting AGENTS.md at the workspace root: the instructions a coding agent new to this project needs. First read what tells you about it — the README, the build and package files (go.mod, package.json, Makefile, pyproject.toml, Cargo.toml…), the layout of the top directories, the test setup, any existing AGENTS.md, CLAUDE.md, .cursorrules or .github/copilot-instructions.md. Then write AGENTS.md with: what the project is, in two lines; how to build, test (a single test too) and lint it, as exact commands; the layout, a line a directory; the conventions a change must follow. Keep it short and true to what you read: do not guess commands you did not find. If AGENTS.md exists, improve it rather than replacing what it says.`

// commands lists what the session offers: the built-ins, then the user's
// prompt files, then the workspace's, by name. A user's file wins over a
// workspace's of the same name: a workspace (a cloned repository) must not
// silently change what the user's own command does.
func (c *Chat) commands() []command {
	out := slices.Clone(builtins)
	taken := map[string]bool{}
	for _, b := range builtins {
		taken[b.name] = true
	}
	var dirs []string
	if d := config.Dir(); d != "" {
		dirs = append(dirs, filepath.Join(d, CommandsDir))
	}
	if len(c.opts.Session.Roots) > 0 {
		dirs = append(dirs, filepath.Join(c.opts.Session.Roots[0], ".tandem", CommandsDir))
	}
	for _, dir := range dirs {
		for _, f := range promptFiles(dir) {
			if !taken[f.name] {
				taken[f.name] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// promptFiles are the prompt files of dir, by name; a file that cannot be
// read is not offered.
func promptFiles(dir string) []command {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []command
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() || !commandName().MatchString(name) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		meta, body := frontMatter(string(data))
		cmd := command{name: name, file: path, description: meta["description"], hint: meta["argument-hint"]}
		if cmd.description == "" {
			cmd.description = firstLine(body)
		}
		out = append(out, cmd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// frontMatter splits a prompt file into its front matter's "key: value"
// lines (Claude Code's and Copilot's YAML, of which tandem reads only plain
// scalars) and its body.
func frontMatter(text string) (map[string]string, string) {
	meta := map[string]string{}
	rest, ok := strings.CutPrefix(strings.ReplaceAll(text, "\r\n", "\n"), "---\n")
	if !ok {
		return meta, text
	}
	head, body, ok := strings.Cut(rest, "\n---")
	if !ok {
		return map[string]string{}, text
	}
	_, body, _ = strings.Cut(body, "\n") // the rest of the closing line
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if u, err := strconv.Unquote(v); err == nil {
			v = u
		} else if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
			v = v[1 : len(v)-1]
		}
		meta[strings.TrimSpace(k)] = v
	}
	return meta, body
}

// firstLine is a body's first non-empty line, cut to a description's length.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if r := []rune(l); len(r) > 80 {
				return string(r[:79]) + "…"
			}
			return l
		}
	}
	return "Prompt file"
}

// available is the commands as ACP advertises them.
func available(cmds []command) []acp.AvailableCommand {
	out := make([]acp.AvailableCommand, 0, len(cmds))
	for _, c := range cmds {
		ac := acp.AvailableCommand{Name: c.name, Description: c.description}
		if c.hint != "" {
			ac.Input = &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: c.hint}}
		}
		if c.file != "" {
			ac.Meta = map[string]any{"tandem": map[string]any{"file": c.file}}
		}
		out = append(out, ac)
	}
	return out
}

// invocation is a prompt read as a command: its name and the rest of the
// line. ok is false for a prompt that is no command, and escaped for one
// that began "//", whose first slash is dropped.
func invocation(prompt []acp.ContentBlock) (name, args string, ok bool) {
	if len(prompt) == 0 || prompt[0].Text == nil {
		return "", "", false
	}
	text := prompt[0].Text.Text
	rest, ok := strings.CutPrefix(text, "/")
	if !ok || strings.HasPrefix(rest, "/") {
		return "", "", false
	}
	end := strings.IndexAny(rest, " \t\n")
	if end < 0 {
		end = len(rest)
	}
	if !commandName().MatchString(rest[:end]) {
		return "", "", false
	}
	return rest[:end], strings.TrimSpace(rest[end:]), true
}

// unescaped is prompt with a leading "//" made "/": the way to send a text
// that starts with a slash and a word.
func unescaped(prompt []acp.ContentBlock) []acp.ContentBlock {
	if len(prompt) == 0 || prompt[0].Text == nil || !strings.HasPrefix(prompt[0].Text.Text, "//") {
		return prompt
	}
	out := slices.Clone(prompt)
	out[0] = acp.TextBlock(prompt[0].Text.Text[1:])
	return out
}

// expand is a prompt file's text for args: its body with $ARGUMENTS
// replaced; a body without $ARGUMENTS gets the arguments after it, so
// nothing typed is lost.
func expand(file, args string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf("the prompt file %s cannot be read (%v); fix or remove it, then send the command again", file, err))
	}
	_, body := frontMatter(string(data))
	body = strings.TrimSpace(body)
	if strings.Contains(body, "$ARGUMENTS") {
		return strings.ReplaceAll(body, "$ARGUMENTS", args), nil
	}
	if args != "" {
		body += "\n\n" + args
	}
	return body, nil
}

// advertise sends the session's commands when they differ from those sent
// last: at its opening, and at each prompt, so a prompt file added or
// changed shows at the next prompt without watching the directories.
func (sv *served) advertise(emit func(acp.SessionUpdate)) []command {
	// Held while sending, so a list is never sent after a prompt's updates
	// that it came before.
	sv.advMu.Lock()
	defer sv.advMu.Unlock()
	cmds := sv.chat.commands()
	list := available(cmds)
	same := sv.advertised != nil && slices.EqualFunc(list, sv.advertised, func(a, b acp.AvailableCommand) bool {
		return a.Name == b.Name && a.Description == b.Description && hintOf(a) == hintOf(b)
	})
	if !same {
		sv.advertised = list
		emit(acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: list}})
	}
	return cmds
}

func hintOf(c acp.AvailableCommand) string {
	if c.Input == nil || c.Input.Unstructured == nil {
		return ""
	}
	return c.Input.Unstructured.Hint
}

// Advertise sends session id's commands to emit (ACP's
// available_commands_update); a front door calls it once the client knows
// the session, after session/new's answer.
func (s *Service) Advertise(id acp.SessionId, emit func(acp.SessionUpdate)) {
	if sv, err := s.session(id); err == nil {
		sv.advertise(emit)
	}
}

// runCommand runs prompt if it is a command tandem answers itself (all but
// init, compact and prompt files, which are turns): done reports it was
// one. Otherwise it returns the prompt to send: a prompt file's text, init's
// prompt, or prompt unescaped; compact reports /compact.
func (s *Service) runCommand(ctx context.Context, id acp.SessionId, sv *served, prompt []acp.ContentBlock, emit func(acp.SessionUpdate)) (send []acp.ContentBlock, compact, done bool, err error) {
	cmds := sv.advertise(emit)
	name, args, ok := invocation(prompt)
	if !ok {
		return unescaped(prompt), false, false, nil
	}
	i := slices.IndexFunc(cmds, func(c command) bool { return c.name == name })
	if i < 0 {
		emit(acp.UpdateAgentMessageText(fmt.Sprintf("There is no command /%s. The commands are:\n\n%s\nTo send a prompt that starts with a slash and a word, begin it with two slashes: //%s.\n", name, listing(cmds), strings.TrimPrefix(prompt[0].Text.Text, "/"))))
		return nil, false, true, nil
	}
	say := func(text string) { emit(acp.UpdateAgentMessageText(text + "\n")) }
	switch cmd := cmds[i]; {
	case cmd.file != "":
		text, err := expand(cmd.file, args)
		if err != nil {
			return nil, false, true, err
		}
		return append([]acp.ContentBlock{acp.TextBlock(text)}, prompt[1:]...), false, false, nil
	case name == "init":
		return append([]acp.ContentBlock{acp.TextBlock(initPrompt)}, prompt[1:]...), false, false, nil
	case name == "compact":
		return nil, true, false, nil
	case name == "model":
		if args == "" {
			var b strings.Builder
			fmt.Fprintf(&b, "The model is %s. Switch with /model NAME, one of:\n", sv.chat.Model())
			for _, m := range ModelNames(sv.chat.opts.Session.Settings()) {
				fmt.Fprintf(&b, "- %s\n", m)
			}
			say(b.String())
			return nil, false, true, nil
		}
		opts, err := s.SetModel(id, args)
		if err != nil {
			return nil, false, true, err
		}
		emit(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: opts}})
		say(fmt.Sprintf("The model is now %s, from the next prompt on.", args))
	case name == "plan":
		on := !sv.chat.PlanMode()
		opts, err := s.SetPlanMode(id, on)
		if err != nil {
			return nil, false, true, err
		}
		emit(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: opts}})
		if on {
			say("Plan mode is on: only reading runs. /plan again turns it off.")
		} else {
			say("Plan mode is off: steps run as the settings allow.")
		}
	case name == "cost":
		say(sv.chat.costText())
	case name == "restore":
		turn, err := strconv.Atoi(args)
		if err != nil || turn < 0 {
			say(fmt.Sprintf("/restore takes a turn number, e.g. /restore 2 (%q is not one); the chat's checkpoints name the turns.", args))
			return nil, false, true, nil
		}
		res, err := s.Restore(ctx, id, turn, false)
		if err != nil {
			return nil, false, true, err
		}
		say(res.Text)
	}
	return nil, false, true, nil
}

// listing is the commands, one a line, as the answer to an unknown one.
func listing(cmds []command) string {
	var b strings.Builder
	for _, c := range cmds {
		fmt.Fprintf(&b, "- /%s", c.name)
		if c.hint != "" {
			fmt.Fprintf(&b, " %s", c.hint)
		}
		fmt.Fprintf(&b, " — %s\n", c.description)
	}
	return b.String()
}

// costText is the chat's context use and cost so far, as /cost tells it.
func (c *Chat) costText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lastUsage == nil {
		return "This chat has made no model call yet: it has cost nothing."
	}
	text := fmt.Sprintf("The context holds %d tokens", c.lastUsage.Used)
	if c.lastUsage.Size > 0 {
		text += fmt.Sprintf(" of the model's %d (%.0f%%)", c.lastUsage.Size, 100*float64(c.lastUsage.Used)/float64(c.lastUsage.Size))
	}
	if c.cost > 0 {
		return text + fmt.Sprintf("; the chat has cost $%.4f so far.", c.cost)
	}
	return text + "; its cost is unknown (the model's prices are not in the built-in table or agent.models)."
}
