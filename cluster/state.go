package cluster

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

// ChangeType says what a Change reports.
type ChangeType string

const (
	// Object events: a configuration appeared, changed or went away.
	Added   ChangeType = "added"
	Changed ChangeType = "changed"
	Deleted ChangeType = "deleted"
	// Finding events: a finding appeared, or no longer holds.
	Found    ChangeType = "found"
	Resolved ChangeType = "resolved"
	// Synced marks the end of the initial state of every kind; Note is
	// anything the user should know about the reading itself.
	Synced ChangeType = "synced"
	Note   ChangeType = "note"
)

// Change is one line of watch output.
type Change struct {
	Type            ChangeType
	Object          *diag.Object     // for object and finding events
	ResourceVersion string           // of the object, for object events
	Diagnostic      *diag.Diagnostic // for finding events
	// Reason explains a resolution ("configuration deleted") or carries
	// the text of a note.
	Reason string
	// Config is the configuration the change is about (the last known
	// state for deletions), for excerpts.
	Config *rules.Config
	// Policy is the same for an admission policy or policy binding.
	Policy *rules.Policy
}

// state is the known state of the cluster and of the findings on it. It
// is owned by one goroutine. Every update relints every configuration,
// because some rules look across configurations, and then reports the
// difference: a finding is printed once when it appears and once when it
// goes, however many times the same state is seen again (relists, watch
// replays).
type state struct {
	configs  map[string]*rules.Config // by objectKey
	policies map[string]*rules.Policy // by objectKey
	findings map[string]diag.Diagnostic
	live     *rules.LiveInventory
	// listed holds the kinds read in full (a list, or a watch's initial
	// state): what is not in configs or policies does not exist.
	listed      map[string]bool
	lintOptions lint.Options
	// internal holds the rule failures (panics) of the last lint.
	internal []error
}

func newStateWith(o lint.Options) *state {
	if o.Settings == nil {
		o.Settings = rules.DefaultSettings()
	}
	return &state{configs: map[string]*rules.Config{}, policies: map[string]*rules.Policy{}, findings: map[string]diag.Diagnostic{}, listed: map[string]bool{}, lintOptions: o}
}

func configKey(c *rules.Config) string { return c.Kind + "/" + c.Meta.Name }

func policyKey(p *rules.Policy) string { return p.Kind + "/" + p.Meta.Name }

// syncPolicies is sync for one policy kind.
func (s *state) syncPolicies(kindName string, policies []*rules.Policy) []Change {
	s.listed[kindName] = true
	var objs []Change
	seen := map[string]bool{}
	for _, p := range policies {
		seen[policyKey(p)] = true
		if ch, ok := s.putPolicy(p); ok {
			objs = append(objs, ch)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.policies)) {
		p := s.policies[key]
		if p.Kind == kindName && !seen[key] {
			delete(s.policies, key)
			objs = append(objs, Change{Type: Deleted, Object: p.Object(), ResourceVersion: p.Meta.ResourceVersion, Policy: p})
		}
	}
	if len(objs) == 0 {
		return nil
	}
	return append(objs, s.relint()...)
}

// upsertPolicy applies an added or modified policy or binding.
func (s *state) upsertPolicy(p *rules.Policy) []Change {
	ch, ok := s.putPolicy(p)
	if !ok {
		return nil
	}
	return append([]Change{ch}, s.relint()...)
}

// removePolicy applies the deletion of a policy or binding.
func (s *state) removePolicy(p *rules.Policy) []Change {
	key := policyKey(p)
	old, ok := s.policies[key]
	if !ok {
		return nil
	}
	delete(s.policies, key)
	return append([]Change{{Type: Deleted, Object: old.Object(), ResourceVersion: p.Meta.ResourceVersion, Policy: old}}, s.relint()...)
}

// putPolicy is put for a policy or binding.
func (s *state) putPolicy(p *rules.Policy) (Change, bool) {
	key := policyKey(p)
	old, ok := s.policies[key]
	switch {
	case !ok:
		s.policies[key] = p
		return Change{Type: Added, Object: p.Object(), ResourceVersion: p.Meta.ResourceVersion, Policy: p}, true
	case old.Meta.UID == p.Meta.UID && old.Meta.ResourceVersion == p.Meta.ResourceVersion:
		return Change{}, false
	default:
		s.policies[key] = p
		return Change{Type: Changed, Object: p.Object(), ResourceVersion: p.Meta.ResourceVersion, Policy: p}, true
	}
}

// known reports whether the object a finding is on is still there.
func (s *state) known(o *diag.Object) bool {
	key := objectKey(o)
	_, config := s.configs[key]
	_, policy := s.policies[key]
	return config || policy
}

// sync replaces the known state of one kind by a complete snapshot of it
// and reports only what differs: the way a relist after 410 Gone carries
// on without repeating or losing a change.
func (s *state) sync(kindName string, configs []*rules.Config) []Change {
	s.listed[kindName] = true
	var objs []Change
	seen := map[string]bool{}
	for _, c := range configs {
		seen[configKey(c)] = true
		if ch, ok := s.put(c); ok {
			objs = append(objs, ch)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(s.configs)) {
		c := s.configs[key]
		if c.Kind == kindName && !seen[key] {
			delete(s.configs, key)
			objs = append(objs, Change{Type: Deleted, Object: c.Object(), ResourceVersion: c.Meta.ResourceVersion, Config: c})
		}
	}
	if len(objs) == 0 {
		return nil
	}
	return append(objs, s.relint()...)
}

// syncKind is sync for a webhook configuration kind and syncPolicies for
// a policy kind.
func (s *state) syncKind(kindName string, configs []*rules.Config, policies []*rules.Policy) []Change {
	if rules.IsPolicyKind(rules.V1, kindName) {
		return s.syncPolicies(kindName, policies)
	}
	return s.sync(kindName, configs)
}

// upsert applies an added or modified object.
func (s *state) upsert(c *rules.Config) []Change {
	ch, ok := s.put(c)
	if !ok {
		return nil
	}
	return append([]Change{ch}, s.relint()...)
}

// remove applies a deletion.
func (s *state) remove(c *rules.Config) []Change {
	key := configKey(c)
	old, ok := s.configs[key]
	if !ok {
		return nil
	}
	delete(s.configs, key)
	return append([]Change{{Type: Deleted, Object: old.Object(), ResourceVersion: c.Meta.ResourceVersion, Config: old}}, s.relint()...)
}

// setLive replaces the live inventory (a periodic re-read) and reports the
// findings that changed with it.
func (s *state) setLive(l *rules.LiveInventory) []Change {
	s.live = l
	return s.relint()
}

// put stores c unless the same object at the same resourceVersion is
// already known (a replayed event).
func (s *state) put(c *rules.Config) (Change, bool) {
	key := configKey(c)
	old, ok := s.configs[key]
	switch {
	case !ok:
		s.configs[key] = c
		return Change{Type: Added, Object: c.Object(), ResourceVersion: c.Meta.ResourceVersion, Config: c}, true
	case old.Meta.UID == c.Meta.UID && old.Meta.ResourceVersion == c.Meta.ResourceVersion:
		return Change{}, false
	default:
		s.configs[key] = c
		return Change{Type: Changed, Object: c.Object(), ResourceVersion: c.Meta.ResourceVersion, Config: c}, true
	}
}

// relint lints everything and returns the findings that appeared and
// those that went away, in output order.
func (s *state) relint() []Change {
	configs := s.sortedConfigs()
	next := map[string]diag.Diagnostic{}
	ds, internal := lintConfigs(configs, s.sortedPolicies(), s.live, s.listed, s.lintOptions)
	s.internal = internal
	for _, d := range ds {
		next[findingKey(d)] = d
	}
	var out []Change
	for _, key := range slices.Sorted(maps.Keys(s.findings)) {
		if _, still := next[key]; still {
			continue
		}
		d := s.findings[key]
		reason := "fixed"
		if !s.known(d.Object) {
			reason = "configuration deleted"
			switch {
			case rules.PolicyKindOf(d.Object.Kind) != "":
				reason = "binding deleted"
			case rules.IsPolicyKind(d.Object.APIVersion, d.Object.Kind):
				reason = "policy deleted"
			}
		}
		out = append(out, Change{Type: Resolved, Object: d.Object, Diagnostic: &d, Reason: reason})
	}
	for _, key := range slices.Sorted(maps.Keys(next)) {
		if _, known := s.findings[key]; known {
			continue
		}
		d := next[key]
		out = append(out, Change{Type: Found, Object: d.Object, Diagnostic: &d, Config: s.configs[objectKey(d.Object)], Policy: s.policies[objectKey(d.Object)]})
	}
	s.findings = next
	slices.SortStableFunc(out, func(a, b Change) int { return compareDiag(*a.Diagnostic, *b.Diagnostic) })
	return out
}

func (s *state) sortedConfigs() []*rules.Config {
	out := make([]*rules.Config, 0, len(s.configs))
	for _, key := range slices.Sorted(maps.Keys(s.configs)) {
		out = append(out, s.configs[key])
	}
	return out
}

func (s *state) sortedPolicies() []*rules.Policy {
	out := make([]*rules.Policy, 0, len(s.policies))
	for _, key := range slices.Sorted(maps.Keys(s.policies)) {
		out = append(out, s.policies[key])
	}
	return out
}

// diagnostics returns the current findings in output order.
func (s *state) diagnostics() []diag.Diagnostic {
	out := slices.Collect(maps.Values(s.findings))
	slices.SortFunc(out, compareDiag)
	return out
}

func objectKey(o *diag.Object) string {
	if o == nil {
		return ""
	}
	return o.Kind + "/" + o.Name
}

func findingKey(d diag.Diagnostic) string {
	return strings.Join([]string{objectKey(d.Object), d.Path, d.Rule, d.Severity.String(), d.Message}, "\x00")
}

// compareDiag orders live findings, which have no file: by object, then
// field path, rule and message.
func compareDiag(a, b diag.Diagnostic) int {
	return cmp.Or(
		cmp.Compare(objectKey(a.Object), objectKey(b.Object)),
		cmp.Compare(a.Path, b.Path),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(b.Severity, a.Severity),
	)
}

// lintConfigs runs every rule over every configuration and every
// admission policy and binding through the lint engine, with the others
// and the live state as inventory. A rule that panics is reported as an
// error, not a crash.
func lintConfigs(configs []*rules.Config, policies []*rules.Policy, live *rules.LiveInventory, listed map[string]bool, o lint.Options) ([]diag.Diagnostic, []error) {
	inv := &rules.Inventory{Configs: configs, Policies: policies, Live: live, Listed: listed}
	res := lint.Configs(configs, inv, o)
	var errs []error
	for _, e := range res.Internal {
		errs = append(errs, e)
	}
	ds := res.Diagnostics
	if len(policies) > 0 {
		pres := lint.Policies(policies, inv, o)
		for _, e := range pres.Internal {
			errs = append(errs, e)
		}
		ds = append(ds, pres.Diagnostics...)
	}
	return ds, errs
}
