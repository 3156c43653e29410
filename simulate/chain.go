package simulate

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/webhooklint/webhooklint/rules"
)

// Decision is what happens to one webhook for the request.
type Decision string

const (
	Called    Decision = "called"
	NotCalled Decision = "not called"
	// MaybeCalled: nothing seen excludes the request, but something the
	// simulation does not know decides (see the checks' "unknown").
	MaybeCalled Decision = "maybe called"
	// Rejects: the API server rejects the request at this webhook without
	// calling it (a matchCondition error under failurePolicy Fail, a
	// dry-run request meeting a webhook with side effects).
	Rejects Decision = "rejects the request"
	// NotReached: an earlier webhook already rejected the request.
	NotReached Decision = "not reached"
)

// Result of one check of a webhook against the request.
type Result string

const (
	Match        Result = "match"
	NoMatch      Result = "no match"
	UnknownMatch Result = "unknown"
	Error        Result = "error"
	NotEvaluated Result = "not evaluated"
)

// Check is one step of the server's decision, with why.
type Check struct {
	// Check is namespaceSelector, objectSelector, rules,
	// matchConditions[i] or dryRun.
	Check  string `json:"check"`
	Result Result `json:"result"`
	Detail string `json:"detail"`
	// Missing lists what an unknown result needs (matchConditions).
	Missing []string `json:"missing,omitempty"`
}

// GroupVersionResourceKind is what the server sends the webhook.
type GroupVersionResourceKind struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	Kind     string `json:"kind"`
}

// Call is one webhook of the chain.
type Call struct {
	Configuration string   `json:"configuration"`
	Webhook       string   `json:"webhook"`
	Decision      Decision `json:"decision"`
	Reason        string   `json:"reason"`
	Checks        []Check  `json:"checks"`
	// InvokedAs is set when matchPolicy Equivalent matched another
	// version or resource: the server converts the object to it.
	InvokedAs          *GroupVersionResourceKind `json:"invokedAs,omitempty"`
	TimeoutSeconds     int32                     `json:"timeoutSeconds"`
	FailurePolicy      string                    `json:"failurePolicy"`
	SideEffects        string                    `json:"sideEffects"`
	MatchPolicy        string                    `json:"matchPolicy"`
	ReinvocationPolicy string                    `json:"reinvocationPolicy,omitempty"`
	// Reinvocation explains whether a called IfNeeded webhook is called
	// again.
	Reinvocation string `json:"reinvocation,omitempty"`
}

func (c *Call) id() string { return c.Configuration + "/" + c.Webhook }

// reached reports whether the webhook takes part (called or maybe).
func (c *Call) reached() bool { return c.Decision == Called || c.Decision == MaybeCalled }

// Reinvocation is one webhook of the second mutating round.
type Reinvocation struct {
	Configuration  string   `json:"configuration"`
	Webhook        string   `json:"webhook"`
	Decision       Decision `json:"decision"`
	Reason         string   `json:"reason"`
	TimeoutSeconds int32    `json:"timeoutSeconds"`
}

// Latency is the worst case, in seconds: every backend answering at its
// timeout.
type Latency struct {
	// Mutating webhooks run one after the other: the sum of timeouts.
	MutatingSeconds int64 `json:"mutatingSeconds"`
	// ReinvocationSeconds: the second round, for the webhooks called again.
	ReinvocationSeconds int64 `json:"reinvocationSeconds"`
	// Validating webhooks run in parallel: the longest timeout.
	ValidatingSeconds int64 `json:"validatingSeconds"`
	TotalSeconds      int64 `json:"totalSeconds"`
	// WithMaybeSeconds is the total when every "maybe called" webhook is
	// called and every possible reinvocation happens.
	WithMaybeSeconds int64 `json:"withMaybeSeconds"`
}

// BackendDown is the outcome when webhook backends cannot be reached.
type BackendDown struct {
	// RejectedBy lists the webhooks (configuration/webhook) whose
	// unreachable backend rejects the request (failurePolicy Fail).
	RejectedBy []string `json:"rejectedBy"`
	// IgnoredBy lists those whose failure is ignored (failurePolicy Ignore).
	IgnoredBy []string `json:"ignoredBy"`
	Summary   string   `json:"summary"`
}

// Chain is the simulated admission chain for one request.
type Chain struct {
	Request *Request
	// NamespaceLabels are the labels the namespaceSelector saw.
	NamespaceLabels *rules.Labels
	// NeverSent is why no webhook sees the request at all, or "".
	NeverSent string
	Mutating  []*Call
	// Reinvocations is the second mutating round.
	Reinvocations []*Reinvocation
	Validating    []*Call
	// MutatingPolicies and ValidatingPolicies are the admission policy
	// bindings, each with its policy, sorted by policy and binding name.
	MutatingPolicies   []*PolicyCall
	ValidatingPolicies []*PolicyCall
	// PoliciesUnknown is why the policies could not be read, or "".
	PoliciesUnknown string
	// Rejected names the webhook or policy at which the request is
	// certainly rejected without a backend answering, or "".
	Rejected    string
	Latency     Latency
	BackendDown BackendDown
	// KubeVersion is the API server version simulated.
	KubeVersion rules.KubeVersion
	// AdmissionPasses is how many times the server runs the chain for the
	// request: 2 for the deletion of a pod that is not running (a graceful
	// deletion with grace period 0 is admitted when the pod is marked and
	// again when it is removed); 0 when that depends on what is unknown.
	AdmissionPasses int
	PassesReason    string
	Notes           []string

	noPolicies bool
	// withPolicies: the input had policies or could not tell; output
	// without them stays as it was before policies were simulated.
	withPolicies bool
}

// ExitCode is simulate's exit status: 1 when the API server can reject
// the request without any webhook saying no (a fail-closed webhook whose
// backend may be down, a certain rejection), else 0.
func (c *Chain) ExitCode() int {
	if c.Rejected != "" || len(c.BackendDown.RejectedBy) > 0 {
		return 1
	}
	return 0
}

// Options are what the simulation knows besides the request.
type Options struct {
	KubeVersion rules.KubeVersion
	// NamespaceLabels returns what is known about a namespace's labels
	// when --namespace-labels is not given (files: the Namespace objects
	// in the input; a cluster: the real namespace). Nil: only the name
	// label.
	NamespaceLabels func(ns string) *rules.Labels
	// EquivalentVersions returns the served versions of group/resource for
	// matchPolicy Equivalent; nil, or a nil result, uses the built-in table.
	EquivalentVersions func(group, resource, subresource string) []string
	// NoMutatingPolicies says no MutatingAdmissionPolicy is bound (a
	// cluster that has none), so none can trigger reinvocation.
	NoMutatingPolicies bool
	// Policies are the admission policies and bindings of the input.
	Policies []*rules.Policy
	// PoliciesUnknown says why the policies are not known (a cluster
	// whose RBAC forbids reading them), or "".
	PoliciesUnknown string
}

// Simulate runs req through configs (both kinds, in any order).
func Simulate(configs []*rules.Config, req *Request, o Options) *Chain {
	if o.KubeVersion.Major == 0 {
		o.KubeVersion = rules.DefaultKubeVersion
	}
	ch := &Chain{Request: req, KubeVersion: o.KubeVersion, noPolicies: o.NoMutatingPolicies}
	ch.AdmissionPasses, ch.PassesReason = admissionPasses(req)
	rreq := ch.rulesRequest(o)
	ev := newConditionEvaluator(req, o.KubeVersion)
	if ev.note != "" {
		ch.Notes = append(ch.Notes, ev.note)
	}
	ch.NeverSent = rules.NeverSentToWebhooks(req.Group, req.Resource, o.KubeVersion)
	ch.PoliciesUnknown = o.PoliciesUnknown
	ch.withPolicies = len(o.Policies) > 0 || o.PoliciesUnknown != ""
	mutatingPairs, mutatingNotes := pairPolicies(o.Policies, true)
	validatingPairs, validatingNotes := pairPolicies(o.Policies, false)
	ch.Notes = append(append(ch.Notes, mutatingNotes...), validatingNotes...)
	ch.mutatingPolicies(mutatingPairs, rreq, ev)

	var mutating, validating []*rules.Config
	for _, c := range configs {
		if c.IsMutating() {
			mutating = append(mutating, c)
		} else {
			validating = append(validating, c)
		}
	}
	// The server sorts configurations by name (configuration managers),
	// then keeps webhooks in their order.
	byName := func(a, b *rules.Config) int { return cmp.Compare(a.Meta.Name, b.Meta.Name) }
	slices.SortStableFunc(mutating, byName)
	slices.SortStableFunc(validating, byName)

	for _, c := range mutating {
		for i := range c.Webhooks {
			call := ch.decide(&c.Webhooks[i], rreq, ev)
			if ch.Rejected != "" {
				call.Decision, call.Reason = NotReached, "the request was rejected at "+ch.Rejected
			} else if call.Decision == Rejects {
				ch.Rejected = call.id()
			}
			ch.Mutating = append(ch.Mutating, call)
		}
	}
	ch.reinvoke()
	ch.validatingPolicies(validatingPairs, rreq, ev)

	// The validating dispatcher decides for every webhook before calling
	// any, and stops at the first matching error: then none is called.
	var calls []*Call
	matchError := ""
	for _, c := range validating {
		for i := range c.Webhooks {
			call := ch.decide(&c.Webhooks[i], rreq, ev)
			if call.Decision == Rejects && matchError == "" && strings.HasPrefix(call.Reason, matchErrorPrefix) {
				matchError = call.id()
			}
			calls = append(calls, call)
		}
	}
	for _, call := range calls {
		switch {
		case ch.Rejected != "":
			call.Decision, call.Reason = NotReached, "the request was rejected at "+ch.Rejected
		case matchError != "" && call.id() != matchError:
			call.Decision, call.Reason = NotCalled, "the validating webhooks are never called: matching "+matchError+" rejects the request first"
		}
	}
	if ch.Rejected == "" {
		if matchError != "" {
			ch.Rejected = matchError
		} else {
			for _, call := range calls {
				if call.Decision == Rejects {
					ch.Rejected = call.id()
					break
				}
			}
		}
	}
	ch.Validating = calls
	ch.latency()
	ch.backendDown()
	return ch
}

// rulesRequest converts req into what rules' matchers take, with the
// namespace labels from the flags or o.
func (ch *Chain) rulesRequest(o Options) *rules.Request {
	req := ch.Request
	rr := &rules.Request{
		Operation: req.Operation, Group: req.Group, Version: req.Version,
		Resource: req.Resource, Subresource: req.Subresource, Namespace: req.Namespace,
	}
	if o.EquivalentVersions != nil {
		rr.EquivalentVersions = o.EquivalentVersions(req.Group, req.Resource, req.Subresource)
	}
	if req.UserKnown {
		rr.UserName, rr.UserGroups = req.UserName, req.UserGroups
		if rr.UserGroups == nil {
			rr.UserGroups = []string{}
		}
	}
	switch {
	case req.Namespace == "":
	case req.NamespaceLabels != nil:
		set := map[string]string{}
		for k, v := range req.NamespaceLabels {
			set[k] = v
		}
		set[rules.LabelMetadataName] = req.Namespace
		rr.NamespaceLabels = rules.KnownLabels(set)
	case o.NamespaceLabels != nil:
		rr.NamespaceLabels = o.NamespaceLabels(req.Namespace)
	default:
		rr.NamespaceLabels = &rules.Labels{Set: map[string]string{rules.LabelMetadataName: req.Namespace}, Partial: true}
	}
	ch.NamespaceLabels = rr.NamespaceLabels
	labelsOf := func(state Presence, u interface{ GetLabels() map[string]string }) *rules.Labels {
		switch {
		case state == Absent || !req.HasObjectMeta:
			return nil
		case state == Given:
			return rules.KnownLabels(u.GetLabels())
		}
		return &rules.Labels{Set: map[string]string{}, Partial: true}
	}
	if req.Object != nil {
		rr.Object = labelsOf(req.ObjectState, req.Object)
	} else {
		rr.Object = labelsOf(req.ObjectState, nil)
	}
	if req.OldObject != nil {
		rr.OldObject = labelsOf(req.OldObjectState, req.OldObject)
	} else {
		rr.OldObject = labelsOf(req.OldObjectState, nil)
	}
	return rr
}

// decide evaluates one webhook in the server's order: namespaceSelector,
// objectSelector, rules, matchConditions, then the dry-run check that
// precedes the call.
func (ch *Chain) decide(w *rules.Webhook, rreq *rules.Request, ev *conditionEvaluator) *Call {
	call := &Call{
		Configuration: w.Config.Meta.Name, Webhook: w.Name,
		TimeoutSeconds: w.EffectiveTimeout(), FailurePolicy: string(w.EffectiveFailurePolicy()),
		SideEffects: string(w.EffectiveSideEffects()), MatchPolicy: string(w.EffectiveMatchPolicy()),
	}
	if w.Config.IsMutating() {
		call.ReinvocationPolicy = string(w.EffectiveReinvocationPolicy())
	}
	if ch.NeverSent != "" {
		call.Decision, call.Reason = NotCalled, ch.NeverSent
		return call
	}
	sim := w.Simulator()
	overall := Called
	var reasons []string
	add := func(c Check, why string) {
		call.Checks = append(call.Checks, c)
		switch c.Result {
		case NoMatch:
			if overall != NotCalled {
				reasons = nil
			}
			overall = NotCalled
			reasons = append(reasons, why)
		case UnknownMatch:
			if overall == Called {
				overall = MaybeCalled
			}
			if overall == MaybeCalled {
				reasons = append(reasons, why)
			}
		}
	}

	nsCheck := namespaceCheck(w, sim.NamespaceSelectorOutcome(rreq), rreq, ch.Request)
	add(nsCheck, "namespaceSelector "+nsCheck.Result.verb())
	objCheck := objectCheck(w, sim.ObjectSelectorOutcome(rreq), ch.Request)
	add(objCheck, "objectSelector "+objCheck.Result.verb())
	m := w.MatchRule(rreq)
	add(ruleCheck(w, m, ch.Request), "no rule matches")
	if m.Index >= 0 && m.Equivalent {
		call.InvokedAs = &GroupVersionResourceKind{Group: m.Group, Version: m.Version, Resource: m.Resource, Kind: kindOf(m, ch.Request)}
	}

	if len(w.MatchConditions) > 0 {
		if overall == NotCalled {
			for i, c := range w.MatchConditions {
				call.Checks = append(call.Checks, Check{Check: conditionName(i, c), Result: NotEvaluated,
					Detail: "the server evaluates matchConditions only when everything else matches"})
			}
		} else {
			checks, outcome, why := ev.evaluate(w, rreq, call.InvokedAs)
			call.Checks = append(call.Checks, checks...)
			switch outcome {
			case NotCalled:
				overall, reasons = NotCalled, []string{why}
			case Rejects:
				if overall == Called {
					overall, reasons = Rejects, []string{why}
				} else {
					reasons = append(reasons, "and then "+why)
				}
			case MaybeCalled:
				if overall == Called {
					overall = MaybeCalled
				}
				reasons = append(reasons, why)
			}
		}
	}

	if ch.Request.DryRun && (overall == Called || overall == MaybeCalled) {
		se := w.EffectiveSideEffects()
		if se == admissionv1.SideEffectClassNone || se == admissionv1.SideEffectClassNoneOnDryRun {
			call.Checks = append(call.Checks, Check{Check: "dryRun", Result: Match,
				Detail: fmt.Sprintf("sideEffects %s: called for dry-run requests (request.dryRun is true)", se)})
		} else {
			shown := string(se)
			if shown == "" {
				shown = "unset"
			}
			call.Checks = append(call.Checks, Check{Check: "dryRun", Result: Error,
				Detail: fmt.Sprintf("sideEffects %s: the server rejects a dry-run request instead of calling the webhook", shown)})
			why := "dry-run request and sideEffects " + shown
			if overall == Called {
				overall, reasons = Rejects, []string{why}
			} else {
				reasons = append(reasons, "and then "+why)
			}
		}
	}
	call.Decision = overall
	switch overall {
	case Called:
		call.Reason = "rules[" + fmt.Sprint(m.Index) + "] matches and nothing excludes the request"
	default:
		call.Reason = strings.Join(reasons, "; ")
	}
	return call
}

func (r Result) verb() string {
	switch r {
	case NoMatch:
		return "does not match"
	case UnknownMatch:
		return "may match"
	}
	return "matches"
}

func conditionName(i int, c admissionv1.MatchCondition) string {
	return fmt.Sprintf("matchConditions[%d] %s", i, c.Name)
}

func toResult(o rules.Outcome) Result {
	switch o {
	case rules.Called:
		return Match
	case rules.NotCalled:
		return NoMatch
	}
	return UnknownMatch
}

func namespaceCheck(w *rules.Webhook, o rules.Outcome, rreq *rules.Request, req *Request) Check {
	c := Check{Check: "namespaceSelector", Result: toResult(o)}
	sel := selectorText(w.NamespaceSelector)
	switch {
	case sel == "":
		c.Detail = "empty: matches every namespace"
	case req.Namespace == "" && req.Resource != "namespaces":
		c.Detail = fmt.Sprintf("%s: never excludes a cluster-scoped request", sel)
	default:
		subject := "namespace " + req.Namespace
		l := rreq.NamespaceLabels
		if req.Resource == "namespaces" && req.Subresource == "" && (req.Operation == admissionv1.Create || req.Operation == admissionv1.Update) {
			subject, l = "the namespace object", rreq.Object
		}
		c.Detail = fmt.Sprintf("%s %s %s labels %s", sel, c.Result.verb(), subject, labelsText(l))
	}
	return c
}

func objectCheck(w *rules.Webhook, o rules.Outcome, req *Request) Check {
	c := Check{Check: "objectSelector", Result: toResult(o)}
	sel := selectorText(w.ObjectSelector)
	if sel == "" {
		c.Detail = "empty: matches every object"
		return c
	}
	var parts []string
	for _, x := range []struct {
		name  string
		state Presence
		obj   interface{ GetLabels() map[string]string }
	}{{"object", req.ObjectState, req.Object}, {"oldObject", req.OldObjectState, req.OldObject}} {
		switch {
		case x.state == Absent:
		case !req.HasObjectMeta:
			parts = append(parts, x.name+" has no metadata")
		case x.state == Given:
			parts = append(parts, x.name+" labels "+labelsText(rules.KnownLabels(x.obj.GetLabels())))
		default:
			parts = append(parts, x.name+" labels unknown (give --"+map[string]string{"object": "object", "oldObject": "old-object"}[x.name]+")")
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no object")
	}
	c.Detail = fmt.Sprintf("%s %s: %s", sel, c.Result.verb(), strings.Join(parts, ", "))
	if o == rules.NotCalled && req.Object != nil && req.OldObject != nil {
		c.Detail += " (neither object nor oldObject matches)"
	}
	return c
}

func ruleCheck(w *rules.Webhook, m rules.RuleMatch, req *Request) Check {
	c := Check{Check: "rules"}
	reqText := fmt.Sprintf("%s %s", req.Operation, gvrText(req.Group, req.Version, req.Resource, req.Subresource))
	switch {
	case m.Index < 0:
		c.Result = NoMatch
		c.Detail = fmt.Sprintf("no rule matches %s", reqText)
		if len(w.Rules) == 0 {
			c.Detail += " (the webhook has no rules)"
		} else if w.EffectiveMatchPolicy() == admissionv1.Exact {
			c.Detail += " with matchPolicy Exact"
		}
	case m.Equivalent:
		c.Result = Match
		c.Detail = fmt.Sprintf("rules[%d] matches %s through matchPolicy Equivalent: the server sends the object converted to %s",
			m.Index, reqText, gvrText(m.Group, m.Version, m.Resource, req.Subresource))
	default:
		c.Result = Match
		c.Detail = fmt.Sprintf("rules[%d] matches %s", m.Index, reqText)
	}
	return c
}

func kindOf(m rules.RuleMatch, req *Request) string {
	if b, ok := rules.LookupBuiltin(m.Group, m.Resource, req.Subresource); ok {
		return b.Kind
	}
	return req.Kind
}

func gvrText(group, version, resource, sub string) string {
	gv := version
	if group != "" {
		gv = group + "/" + version
	}
	s := gv + " " + resource
	if sub != "" {
		s += "/" + sub
	}
	return s
}

func selectorText(s *metav1.LabelSelector) string {
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return ""
	}
	return "{" + metav1.FormatLabelSelector(s) + "}"
}

func labelsText(l *rules.Labels) string {
	if l == nil {
		return "(none: no metadata)"
	}
	keys := make([]string, 0, len(l.Set))
	for k := range l.Set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l.Set[k]
	}
	s := "{" + strings.Join(parts, ",") + "}"
	if l.Partial {
		s += " (others unknown)"
	}
	return s
}

// changes reports whether the user said call changes the object; known is
// false when --changes was not given.
func (ch *Chain) changes(call *Call) (changes, known bool) {
	if ch.Request.Changes == nil {
		return false, false
	}
	for _, n := range ch.Request.Changes {
		if n == call.Webhook || n == call.id() {
			return true, true
		}
	}
	return false, true
}

// reinvoke decides the second mutating round: a called webhook with
// reinvocationPolicy IfNeeded is called again when a webhook called after
// it in the first round changes the object (mutating/dispatcher.go), or
// when a later admission plugin (a MutatingAdmissionPolicy) does.
func (ch *Chain) reinvoke() {
	if ch.Rejected != "" {
		return // the request never gets to a second round
	}
	for i, call := range ch.Mutating {
		if !call.reached() || call.ReinvocationPolicy != string(admissionv1.IfNeededReinvocationPolicy) {
			continue
		}
		var certain, maybe []string
		for _, later := range ch.Mutating[i+1:] {
			if !later.reached() {
				continue
			}
			changes, known := ch.changes(later)
			switch {
			case known && !changes:
			case known && later.Decision == Called && call.Decision == Called:
				certain = append(certain, later.id())
			default:
				maybe = append(maybe, later.id())
			}
		}
		r := &Reinvocation{Configuration: call.Configuration, Webhook: call.Webhook, TimeoutSeconds: call.TimeoutSeconds}
		switch {
		case len(certain) > 0:
			r.Decision = Called
			r.Reason = strings.Join(certain, ", ") + " changes the object after it"
		case len(maybe) > 0:
			r.Decision = MaybeCalled
			r.Reason = "if " + strings.Join(maybe, " or ") + " changes the object after it"
		case ch.noPolicies:
			r.Decision = NotCalled
			r.Reason = "no webhook called after it changes the object, and no MutatingAdmissionPolicy is bound"
		case ch.Request.Changes != nil:
			r.Decision = NotCalled
			r.Reason = "no webhook called after it changes the object (--changes)"
		default:
			r.Decision = MaybeCalled
			r.Reason = "only if a MutatingAdmissionPolicy changes the object: no webhook called after it does"
		}
		call.Reinvocation = string(r.Decision) + " again: " + r.Reason
		ch.Reinvocations = append(ch.Reinvocations, r)
	}
	if len(ch.Reinvocations) > 0 {
		ch.Notes = append(ch.Notes, "in the second round the server evaluates the webhook's selectors and matchConditions again, on the changed object")
	}
}

// admissionPasses follows the generic registry's Delete
// (k8s.io/apiserver pkg/registry/generic/registry/store.go): a graceful
// deletion, or one that must update finalizers, runs delete admission
// inside that update, and again for the removal itself when it happens at
// once. Pods are deleted gracefully, with grace period 0 when they are not
// on a node or have terminated; an object with finalizers is only marked.
// A dry run stops after the update.
func admissionPasses(req *Request) (int, string) {
	if req.Operation != admissionv1.Delete {
		return 1, ""
	}
	old := req.OldObject
	if old != nil && len(old.GetFinalizers()) > 0 {
		return 1, "the object has finalizers: the deletion only marks it, and the removal later is not admitted"
	}
	if req.Group != "" || req.Resource != "pods" || req.Subresource != "" || req.DryRun {
		return 1, ""
	}
	if old == nil {
		return 0, "deleting a pod is admitted twice when it is not running on a node (grace period 0), once otherwise; give --old-object"
	}
	node, _, _ := unstructured.NestedString(old.Object, "spec", "nodeName")
	phase, _, _ := unstructured.NestedString(old.Object, "status", "phase")
	if node == "" || phase == string(corev1.PodSucceeded) || phase == string(corev1.PodFailed) {
		return 2, "the pod is not running on a node, so its deletion is immediate and admitted twice: when the pod is marked deleted and when it is removed (three times when the server retries the removal because its cache lags)"
	}
	return 1, "the pod runs on a node: the deletion is graceful and the kubelet's final deletion is a request of its own"
}

func (ch *Chain) latency() {
	l := &ch.Latency
	var maybeMut, maybeRe, maxVal, maxMaybeVal int64
	for _, c := range ch.Mutating {
		switch c.Decision {
		case Called:
			l.MutatingSeconds += int64(c.TimeoutSeconds)
		case MaybeCalled:
			maybeMut += int64(c.TimeoutSeconds)
		}
	}
	for _, r := range ch.Reinvocations {
		switch r.Decision {
		case Called:
			l.ReinvocationSeconds += int64(r.TimeoutSeconds)
		case MaybeCalled:
			maybeRe += int64(r.TimeoutSeconds)
		}
	}
	for _, c := range ch.Validating {
		switch c.Decision {
		case Called:
			maxVal = max(maxVal, int64(c.TimeoutSeconds))
		case MaybeCalled:
			maxMaybeVal = max(maxMaybeVal, int64(c.TimeoutSeconds))
		}
	}
	l.ValidatingSeconds = maxVal
	l.TotalSeconds = l.MutatingSeconds + l.ReinvocationSeconds + l.ValidatingSeconds
	l.WithMaybeSeconds = l.MutatingSeconds + maybeMut + l.ReinvocationSeconds + maybeRe + max(maxVal, maxMaybeVal)
	// The figures above are per pass; the totals count every pass, an
	// unknown number of passes (0) as one certain and two at worst.
	passes, worst := int64(ch.AdmissionPasses), int64(ch.AdmissionPasses)
	if passes == 0 {
		passes, worst = 1, 2
	}
	l.TotalSeconds *= passes
	l.WithMaybeSeconds *= worst
	if l.WithMaybeSeconds > defaultRequestTimeout {
		ch.Notes = append(ch.Notes, fmt.Sprintf("the worst case exceeds the API server's default request timeout of %ds (--request-timeout): with every backend hanging, the request times out before the chain ends", defaultRequestTimeout))
	}
}

// defaultRequestTimeout is kube-apiserver's default --request-timeout, in
// seconds, which bounds the whole chain.
const defaultRequestTimeout = 60

func (ch *Chain) backendDown() {
	b := &ch.BackendDown
	b.RejectedBy, b.IgnoredBy = []string{}, []string{}
	for _, list := range [][]*Call{ch.Mutating, ch.Validating} {
		for _, c := range list {
			if !c.reached() {
				continue
			}
			if c.FailurePolicy == string(admissionv1.Ignore) {
				b.IgnoredBy = append(b.IgnoredBy, c.id())
			} else {
				b.RejectedBy = append(b.RejectedBy, c.id())
			}
		}
	}
	switch {
	case ch.Rejected != "":
		b.Summary = "the request is rejected at " + ch.Rejected + " whatever the backends do"
	case len(b.RejectedBy) > 0:
		b.Summary = "rejected if the backend of any of " + strings.Join(b.RejectedBy, ", ") + " is down (failurePolicy Fail)"
		if len(b.IgnoredBy) > 0 {
			b.Summary += "; the others are skipped after their timeout"
		}
	case len(b.IgnoredBy) > 0:
		b.Summary = "admitted even if every backend is down (failurePolicy Ignore); a hanging backend still costs its timeout"
	default:
		b.Summary = "no webhook is called: no backend matters"
	}
}
