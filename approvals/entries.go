package approvals

// Entry is one secret or protected rule of the policy, as a kernel that
// knows only hierarchies of paths can hold it.
type Entry struct {
	Path string
	// NamePrefix means the rule covers Path's siblings whose name starts
	// with Path's last name, and what is under them
	// (~/.cargo/credentials*).
	NamePrefix bool
}

// SecretEntries returns the policy's secret rules, as written and as real
// paths.
func (p *Policy) SecretEntries() []Entry { return exported(p.secrets) }

// SocketEntries returns the agents' and daemons' sockets the policy knows.
// They are secret, but not among SecretEntries, because a directory that
// holds a socket holds no secret to read.
func (p *Policy) SocketEntries() []Entry { return exported(p.sockets) }

// ProtectedEntries returns the policy's protected rules. A directory on PATH
// covers only its direct entries in the policy; here it covers its whole
// tree, the stricter reading a hierarchy-based kernel rule can hold.
func (p *Policy) ProtectedEntries() []Entry { return exported(p.protected) }

func exported(es []entry) []Entry {
	out := make([]Entry, len(es))
	for i, e := range es {
		out[i] = Entry{Path: e.path, NamePrefix: e.kind == prefix}
	}
	return out
}
