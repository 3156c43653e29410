package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// This file simulates the API server's decision whether to call a webhook
// for one request (webhook-facts C04–C08), so that rules can ask "would this
// webhook intercept the request that creates its own pods?" It follows
// k8s.io/apiserver@v0.37.2 pkg/admission/plugin/webhook/generic/webhook.go
// ShouldCallHook and the predicates/{rules,namespace,object} matchers, with
// one difference: what the input does not say (labels of a namespace that
// is not in the input, the outcome of a CEL matchCondition) is "unknown"
// instead of being guessed.

// LabelMetadataName is the label the API server sets on every namespace to
// its own name (webhook-facts B12): the one namespace label always known.
const LabelMetadataName = "kubernetes.io/metadata.name"

// Labels is a label set that may be only partly known.
type Labels struct {
	Set map[string]string
	// Partial means keys missing from Set may be present with any value.
	Partial bool
}

// KnownLabels is a label set known in full.
func KnownLabels(set map[string]string) *Labels { return &Labels{Set: set} }

// Request is one admission request to simulate.
type Request struct {
	Operation                             admissionv1.OperationType
	Group, Version, Resource, Subresource string
	// EquivalentVersions are the other served versions of the same
	// group/resource; with matchPolicy Equivalent a rule naming one of them
	// matches too (C05). Nil means: the versions of the built-in resources
	// table (which also lists alpha and beta versions a default cluster may
	// not serve, so a rule naming only those counts as matching).
	EquivalentVersions []string
	// Name is the object's name, when known; only the resourceNames of
	// admission policies look at it.
	Name string
	// Namespace is the request's namespace: empty for cluster-scoped
	// resources, the namespace's own name for namespaces objects.
	Namespace string
	// NamespaceLabels are the labels of Namespace (nil: nothing known, not
	// even the default name label).
	NamespaceLabels *Labels
	// Object and OldObject are the labels of the new and old object; nil
	// means there is no such object, or it has no metadata (the options
	// objects of CONNECT), which an objectSelector never matches (C06).
	Object, OldObject *Labels
	// UserName and UserGroups identify who sends the request; empty when
	// unknown. Only matchConditions can look at them.
	UserName   string
	UserGroups []string
}

// Outcome is the simulated answer to "is the webhook called?".
type Outcome int

const (
	// NotCalled: some part of the webhook certainly excludes the request.
	NotCalled Outcome = iota
	// MaybeCalled: nothing excludes the request for certain, but the
	// answer depends on something the input does not say.
	MaybeCalled
	// Called: the webhook is called for this request.
	Called
)

func (o Outcome) String() string {
	return [...]string{"not called", "maybe called", "called"}[o]
}

// and combines two outcomes that must both hold (three-valued logic).
func (o Outcome) and(p Outcome) Outcome { return min(o, p) }

// or combines two outcomes of which one suffices.
func (o Outcome) or(p Outcome) Outcome { return max(o, p) }

// Unknown names the part of a webhook whose result the input cannot decide.
type Unknown string

const (
	UnknownNamespaceSelector Unknown = "namespaceSelector"
	UnknownObjectSelector    Unknown = "objectSelector"
	UnknownMatchConditions   Unknown = "matchConditions"
)

// Simulation is the result of Webhook.Simulate.
type Simulation struct {
	Outcome Outcome
	// Rule is the index of the first rule that matches (exactly or via an
	// equivalent version), or -1.
	Rule int
	// Unknowns lists what a MaybeCalled outcome depends on, in evaluation
	// order; empty otherwise.
	Unknowns []Unknown
}

// OnlyUnknown reports whether the outcome is MaybeCalled solely because of u.
func (s Simulation) OnlyUnknown(u Unknown) bool {
	return s.Outcome == MaybeCalled && len(s.Unknowns) == 1 && s.Unknowns[0] == u
}

// Simulate decides whether the API server would call w for req, after the
// server's defaults (matchPolicy, scope, empty selectors). The evaluation
// order is the server's: namespaceSelector, objectSelector, rules,
// matchConditions (C08); since all must hold, order only matters for which
// unknowns are listed. To simulate many requests, use Simulator.
func (w *Webhook) Simulate(req *Request) Simulation { return w.Simulator().Simulate(req) }

// Simulator is a webhook prepared for simulating many requests: its
// selectors are parsed once.
type Simulator struct {
	w             *Webhook
	nsSel, objSel preparedSelector
}

// Simulator prepares w for Simulate calls.
func (w *Webhook) Simulator() *Simulator {
	return &Simulator{w: w, nsSel: prepareSelector(w.NamespaceSelector), objSel: prepareSelector(w.ObjectSelector)}
}

// Simulate is Webhook.Simulate.
func (s *Simulator) Simulate(req *Request) Simulation {
	w := s.w
	sim := Simulation{Outcome: Called, Rule: -1}
	step := func(o Outcome, u Unknown) {
		if o == MaybeCalled {
			sim.Unknowns = append(sim.Unknowns, u)
		}
		sim.Outcome = sim.Outcome.and(o)
	}
	step(s.matchNamespaceSelector(req), UnknownNamespaceSelector)
	step(s.matchObjectSelector(req), UnknownObjectSelector)
	sim.Rule = w.matchingRule(req)
	if sim.Rule < 0 {
		step(NotCalled, "")
	}
	if len(w.MatchConditions) > 0 {
		step(matchConditionsOutcome(w.MatchConditions, req), UnknownMatchConditions)
	}
	if sim.Outcome != MaybeCalled {
		sim.Unknowns = nil
	}
	return sim
}

// matchingRule returns the index of the first rule matching req, trying
// equivalent versions after all exact attempts failed, as the server does.
func (w *Webhook) matchingRule(req *Request) int {
	for i := range w.Rules {
		if ruleMatches(&w.Rules[i], req, req.Version) {
			return i
		}
	}
	if w.EffectiveMatchPolicy() != admissionv1.Equivalent {
		return -1
	}
	versions := req.EquivalentVersions
	if versions == nil {
		if b, ok := LookupBuiltin(req.Group, req.Resource, req.Subresource); ok {
			versions = b.Versions
		}
	}
	for i := range w.Rules {
		for _, v := range versions {
			if v != req.Version && ruleMatches(&w.Rules[i], req, v) {
				return i
			}
		}
	}
	return -1
}

// ruleMatches is predicates/rules Matcher.Matches with the request's
// version replaced by version.
func ruleMatches(r *admissionv1.RuleWithOperations, req *Request, version string) bool {
	return requestScopeMatches(EffectiveScope(r.Rule), req, version) &&
		requestOperationMatches(r.Operations, req.Operation) &&
		exactOrWildcard(r.APIGroups, req.Group) &&
		exactOrWildcard(r.APIVersions, version) &&
		ruleHasResource(r.Resources, req.Resource, req.Subresource)
}

// isNamespaceObject mirrors the server's comparison with the full
// group/version/resource of core v1 namespaces.
func isNamespaceObject(req *Request, version string) bool {
	return req.Group == "" && version == "v1" && req.Resource == "namespaces"
}

// requestScopeMatches: namespaces objects carry their own name as request
// namespace, yet count as cluster-scoped (C04).
func requestScopeMatches(scope admissionv1.ScopeType, req *Request, version string) bool {
	switch scope {
	case admissionv1.AllScopes:
		return true
	case admissionv1.NamespacedScope:
		return !isNamespaceObject(req, version) && req.Namespace != ""
	case admissionv1.ClusterScope:
		return isNamespaceObject(req, version) || req.Namespace == ""
	}
	return false
}

func requestOperationMatches(ops []admissionv1.OperationType, op admissionv1.OperationType) bool {
	return slices.Contains(ops, admissionv1.OperationAll) || slices.Contains(ops, op)
}

func exactOrWildcard(items []string, requested string) bool {
	return slices.Contains(items, "*") || slices.Contains(items, requested)
}

// matchNamespaceSelector follows predicates/namespace MatchNamespaceSelector:
// cluster-scoped requests other than for namespaces are never excluded (C07),
// a namespace's own create/update is judged on the new object's labels.
func (s *Simulator) matchNamespaceSelector(req *Request) Outcome {
	if req.Namespace == "" && req.Resource != "namespaces" {
		return Called
	}
	l := req.NamespaceLabels
	if req.Resource == "namespaces" && req.Subresource == "" &&
		(req.Operation == admissionv1.Create || req.Operation == admissionv1.Update) {
		l = req.Object
	}
	return s.nsSel.outcome(l)
}

// matchObjectSelector follows predicates/object MatchObjectSelector: either
// the new or the old object may match; a missing object never does.
func (s *Simulator) matchObjectSelector(req *Request) Outcome {
	if s.objSel.empty {
		return Called
	}
	out := NotCalled
	for _, l := range []*Labels{req.Object, req.OldObject} {
		if l != nil {
			out = out.or(s.objSel.outcome(l))
		}
	}
	return out
}

// preparedSelector is a webhook label selector parsed once.
type preparedSelector struct {
	empty   bool // nil or {}: the server defaults nil to {}, which matches everything
	invalid bool // does not parse; the server never stores such a selector
	reqs    labels.Requirements
}

func prepareSelector(sel *metav1.LabelSelector) preparedSelector {
	if selectorEmpty(sel) {
		return preparedSelector{empty: true}
	}
	parsed, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return preparedSelector{invalid: true}
	}
	reqs, _ := parsed.Requirements()
	return preparedSelector{reqs: reqs}
}

// outcome evaluates the selector against a label set that may be partly
// known; unknown labels (nil l) and invalid selectors give MaybeCalled.
func (p preparedSelector) outcome(l *Labels) Outcome {
	switch {
	case p.empty:
		return Called
	case p.invalid || l == nil:
		return MaybeCalled
	}
	set := labels.Set(l.Set)
	out := Called
	for _, r := range p.reqs {
		if l.Partial && !set.Has(r.Key()) {
			out = out.and(MaybeCalled)
			continue
		}
		if !r.Matches(set) {
			return NotCalled
		}
	}
	return out
}

// SelectorOutcome evaluates a webhook label selector against a label set
// that may be partly known. A nil or empty selector matches everything.
func SelectorOutcome(sel *metav1.LabelSelector, l *Labels) Outcome {
	return prepareSelector(sel).outcome(l)
}

// NamespaceLabels returns what the input says about namespace ns: the
// labels of its Namespace object if present (plus the name label the server
// always sets), else only the name label, with any others unknown.
func (in *Inventory) NamespaceLabels(ns string) *Labels {
	if in != nil {
		for _, n := range in.Namespaces {
			if n != nil && n.Name == ns {
				set := make(map[string]string, len(n.Labels)+1)
				for k, v := range n.Labels {
					set[k] = v
				}
				set[LabelMetadataName] = ns
				return &Labels{Set: set}
			}
		}
	}
	return &Labels{Set: map[string]string{LabelMetadataName: ns}, Partial: true}
}

// Assume returns l with unknown keys taken to be absent: the labels of an
// object the input does not describe, assumed to carry only what the server
// sets.
func (l *Labels) Assume() *Labels {
	if l == nil {
		return &Labels{}
	}
	return &Labels{Set: l.Set}
}

// matchingSignature identifies what decides whether a webhook is called:
// its rules, selectors, matchConditions and match policy after defaults.
// Rules that simulate many requests per webhook key their results by it.
func matchingSignature(w *Webhook, in *Inventory) string {
	if s, ok := matchingSignatures(in)[w]; ok {
		return s
	}
	// A webhook of no configuration of the input (a test's copy).
	var k keyBuilder
	return string(k.matching(w))
}

// matchingSignatures holds the signature of every webhook of the input,
// made at once: asked per webhook, each was an entry of Derived's map with
// its closure and its own copy of a signature that most webhooks of a
// unit share, all live until the unit's last rule ran (18 MB of the 48,000
// webhooks of 24,000 configurations).
func matchingSignatures(in *Inventory) map[*Webhook]string {
	type key struct{}
	return derivedOf(in, key{}, func(in *Inventory) any {
		n := 0
		for _, c := range in.Configs {
			n += len(c.Webhooks)
		}
		out := make(map[*Webhook]string, n)
		same := map[string]string{}
		var k keyBuilder
		for _, c := range in.Configs {
			for i := range c.Webhooks {
				w := &c.Webhooks[i]
				k = k.matching(w)
				s, ok := same[string(k)]
				if !ok {
					s = string(k)
					same[s] = s
				}
				out[w] = s
				k = k[:0]
			}
		}
		return out
	}).(map[*Webhook]string)
}

// matching appends what matchingSignature is made of.
func (k keyBuilder) matching(w *Webhook) keyBuilder {
	k.rules(w.Rules)
	k.selector(w.NamespaceSelector)
	k.selector(w.ObjectSelector)
	for _, mc := range w.MatchConditions {
		k.str(mc.Name)
		k.str(mc.Expression)
	}
	k.end()
	k.str(string(w.EffectiveMatchPolicy()))
	return k
}
