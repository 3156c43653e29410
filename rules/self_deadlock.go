package rules

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/webhooklint/webhooklint/diag"
)

// SelfDeadlockRule is the name of the rule, for the packages that judge its findings.
const SelfDeadlockRule = "self-deadlock"

func init() {
	register(&Rule{
		Name:     SelfDeadlockRule,
		Summary:  "a fail-closed webhook can block the requests that bring its own backend back",
		Severity: diag.Warning,
		Category: Practice,
		// The backend's namespace, the Service and the selectors are what
		// a kustomize overlay sets.
		DependsOnOverlay: true,
		Since:            "0.1.0",
		Doc: Doc{
			Why: "A webhook served from inside the cluster needs pods to answer. If it fails closed " +
				"(`failurePolicy: Fail`, the v1 default) and its rules, selectors and matchConditions also " +
				"match the requests that recreate those pods — the ReplicaSet the Deployment controller " +
				"creates, the Pods the ReplicaSet controller creates, the service account token the kubelet requests for them, the " +
				"kubelet's status update that marks them Ready, the EndpointSlices that route to them — then the day every backend pod " +
				"is gone (node drain, upgrade, eviction, crash loop) each of those requests calls the " +
				"webhook, the call fails, and the request is rejected. The backend can never come back " +
				"on its own; someone must delete the webhook configuration by hand. This is the most " +
				"common webhook outage in the wild (linkerd, Kyverno, Portieris and others).\n\n" +
				"The rule follows `clientConfig.service` to the Service in the same input, the Service's " +
				"selector to the Deployments, StatefulSets, DaemonSets, Jobs and Pods behind it, and " +
				"simulates the API server's matching (rules, scope, namespaceSelector against the " +
				"namespace's labels, objectSelector against the pod template labels, and simple " +
				"matchConditions on `request.namespace`). A Namespace that is not in the input is " +
				"assumed to carry only the `kubernetes.io/metadata.name` label the server sets, plus the " +
				"labels a workload of the input sets with `kubectl label ns`; an opt-out label nothing sets " +
				"excludes nothing, and the message names it. When " +
				"the Service or its workloads are not in the input, the rule asks whether the webhook " +
				"can intercept the creation of a pod in the Service's namespace. A unit without any Service is a " +
				"part of an install whose rest is elsewhere (controller-gen's `config/webhook/manifests.yaml` " +
				"before `config/default` adds its namespace and namespaceSelectors): that it is applied as written " +
				"is assumed, so the finding is info and says so; naming the file or its folder in `units.entries` " +
				"(or installing it with a GitOps entry) states it, and the finding is a warning again " +
				"(docs/sources.md, \"Parts of an install\").\n\n" +
				"Two webhooks can deadlock each other the same way: if webhook A fails closed on what B's " +
				"backend needs and B on what A's needs, neither comes back once both are down (for " +
				"example after a CNI outage). When the input holds both backends the rule reports such " +
				"loops too.\n\n" +
				"The message names the first of what the webhook blocks (a workload and its first request; its " +
				"Secrets: serving certificates, Helm release records) and the fix, which names the backend's " +
				"namespace; \"may block\" marks requests that matchConditions the rule cannot decide may exclude. " +
				"When the namespaceSelector relies on an opt-out label the namespace does not carry, the message " +
				"says so (\"opt-out label unset\"): the label is the one the selector at the finding tests. A " +
				"backend in `kube-system` or `kube-node-lease` is worse: the cluster itself depends on those " +
				"namespaces, and system-critical-scope leaves their requests to this finding, whose fix covers " +
				"both. In a loop every webhook is reported, each with the namespaces it must exclude. Under " +
				"`webhooklint cluster` the input holds no Services nor workloads: the backend is any pod of the " +
				"Service's namespace.",
			Fix: "Exclude the backend's namespace (for a loop: each other's namespaces) with a `namespaceSelector` on `kubernetes.io/metadata.name` " +
				"(a label only the API server sets, so users cannot opt out with it), or a matchCondition " +
				"such as `request.namespace != \"image-policy\"`. An objectSelector that skips the backend's " +
				"own pods works too but any pod author can copy those labels. Failing open " +
				"(`failurePolicy: Ignore`) also breaks the loop, at the price of not enforcing while the " +
				"backend is down.",
			Sources: []string{
				docsWebhooks + "#avoiding-deadlocks-in-self-hosted-webhooks",
				docsGoodPractices + "#avoid-self-mutations",
				issueCNIDeadlock,
				issueOwnReplicaSets,
				issueSelectorBypass,
				issueUnsetNameLabel,
			},
		},
		Check: checkSelfDeadlock,
	})
}

// backend is what serves a webhook, as far as the input tells.
type backend struct {
	Namespace string
	Service   *corev1.Service // nil when not in the input
	Workloads []Workload      // the pod owners the Service selects
	// indexes are the Workloads' indexes in the Inventory's.
	indexes []int
}

// findBackend resolves a service reference within the input. Services and
// workloads without a namespace are taken to be installed where the
// webhook says (bundles applied with `kubectl -n`).
func findBackend(in *Inventory, ref *admissionv1.ServiceReference) backend {
	if in == nil {
		return backend{Namespace: ref.Namespace}
	}
	if len(backendIndex(in).services[ref.Name]) == 0 {
		// No Service to resolve: the backend is its namespace, and a
		// folder of thousands of namespaces would remember each.
		return backend{Namespace: ref.Namespace}
	}
	type key struct{ namespace, name string }
	return in.Derived(key{ref.Namespace, ref.Name}, func() any { return resolveBackend(in, ref) }).(backend)
}

func resolveBackend(in *Inventory, ref *admissionv1.ServiceReference) backend {
	b := backend{Namespace: ref.Namespace}
	x := backendIndex(in)
	// A Service in the named namespace wins over one without a namespace.
	for _, s := range x.services[ref.Name] {
		if s.Namespace == ref.Namespace {
			b.Service = s
			break
		}
		if s.Namespace == "" && b.Service == nil {
			b.Service = s
		}
	}
	if b.Service == nil || len(b.Service.Spec.Selector) == 0 {
		return b
	}
	sel := labels.SelectorFromSet(b.Service.Spec.Selector)
	// The workloads of the namespace and those without one, in the unit's order.
	candidates := append(slices.Clone(x.workloads[ref.Namespace]), x.workloads[""]...)
	if ref.Namespace == "" {
		candidates = x.workloads[""]
	}
	slices.Sort(candidates)
	for _, i := range candidates {
		w := in.Workloads[i]
		if w.HelmTestHook {
			continue // runs only under `helm test`; serves nothing
		}
		if sel.Matches(labels.Set(w.PodLabels)) {
			b.Workloads = append(b.Workloads, w)
			b.indexes = append(b.indexes, i)
		}
	}
	return b
}

// unitBackends indexes the unit's Services by name and its workloads (by
// index) by namespace, once per unit: resolving thousands of webhooks'
// backends would otherwise scan every Service and workload each time.
type unitBackends struct {
	services  map[string][]*corev1.Service
	workloads map[string][]int
}

func backendIndex(in *Inventory) unitBackends {
	type key struct{}
	return derivedOf(in, key{}, func(in *Inventory) any {
		x := unitBackends{services: map[string][]*corev1.Service{}, workloads: map[string][]int{}}
		for _, s := range in.Services {
			if s != nil {
				x.services[s.Name] = append(x.services[s.Name], s)
			}
		}
		for i, w := range in.Workloads {
			x.workloads[w.Object.Namespace] = append(x.workloads[w.Object.Namespace], i)
		}
		return x
	}).(unitBackends)
}

// backendRequest is one request a backend needs to come back.
type backendRequest struct {
	who string // the backend object it serves, e.g. Deployment "ns/name"
	req *Request
}

func (r backendRequest) String() string {
	gr := r.req.Resource
	if r.req.Group != "" {
		gr = r.req.Group + "/" + gr
	}
	if r.req.Subresource != "" {
		gr += "/" + r.req.Subresource
	}
	return string(r.req.Operation) + " " + gr
}

// requestsFor lists what bringing b back takes: creating what its workloads
// create, binding and reporting status of their pods, and keeping the
// Service's EndpointSlices and Endpoints current. Without workloads it is
// the creation of any pod in the namespace, assumed to carry no labels.
func requestsFor(b backend, nsLabels *Labels) []backendRequest {
	mk := func(op admissionv1.OperationType, group, resource, sub string, obj *Labels) *Request {
		return &Request{
			Operation: op, Group: group, Version: "v1", Resource: resource, Subresource: sub,
			Namespace: b.Namespace, NamespaceLabels: nsLabels, Object: obj,
		}
	}
	var out []backendRequest
	if len(b.Workloads) == 0 {
		out = append(out, backendRequest{"", mk(admissionv1.Create, "", "pods", "", KnownLabels(nil))})
	}
	for _, w := range b.Workloads {
		who := fmt.Sprintf("%s %q", w.Object.Kind, b.Namespace+"/"+w.Object.Name)
		pods := KnownLabels(w.PodLabels)
		for _, gr := range w.Creates {
			out = append(out, backendRequest{who, mk(admissionv1.Create, gr.Group, gr.Resource, "", pods)})
		}
		// The scheduler binds the pod (a Binding object, no labels), the
		// kubelet requests its service account token (a TokenRequest, no
		// labels) and reports it Ready (an update of the pod's status).
		out = append(out,
			backendRequest{who, mk(admissionv1.Create, "", "pods", "binding", KnownLabels(nil))},
			backendRequest{who, mk(admissionv1.Create, "", "serviceaccounts", "token", KnownLabels(nil))},
			backendRequest{who, statusUpdate(mk(admissionv1.Update, "", "pods", "status", pods))},
		)
	}
	// Webhook servers commonly write their serving certificate to a Secret
	// at startup (cert rotators in Gatekeeper, Kyverno, Knative), and Helm
	// keeps its release records there, so repairing the install needs
	// them too; their labels are unknown.
	secrets := secretsWho
	for _, op := range []admissionv1.OperationType{admissionv1.Create, admissionv1.Update} {
		out = append(out, backendRequest{secrets, statusUpdate(mk(op, "", "secrets", "", &Labels{Partial: true}))})
	}
	if b.Service != nil {
		who := fmt.Sprintf("Service %q", b.Namespace+"/"+b.Service.Name)
		slice := maps.Clone(b.Service.Labels)
		if slice == nil {
			slice = map[string]string{}
		}
		slice["kubernetes.io/service-name"] = b.Service.Name
		slice["endpointslice.kubernetes.io/managed-by"] = "endpointslice-controller.k8s.io"
		for _, op := range []admissionv1.OperationType{admissionv1.Create, admissionv1.Update} {
			out = append(out,
				backendRequest{who, statusUpdate(mk(op, "discovery.k8s.io", "endpointslices", "", KnownLabels(slice)))},
				backendRequest{who, statusUpdate(mk(op, "", "endpoints", "", KnownLabels(b.Service.Labels)))},
			)
		}
	}
	return out
}

// secretsWho names the backend's Secrets in messages; what is done to them
// (create, update) goes without saying.
const secretsWho = "its Secrets"

// statusUpdate makes an update request carry the same labels old and new.
func statusUpdate(r *Request) *Request {
	if r.Operation == admissionv1.Update {
		r.OldObject = r.Object
	}
	return r
}

// interception is what a webhook would intercept of a backend's requests.
type interception struct {
	hits        []backendRequest
	rule        int  // the rule matching the first hit
	conditional bool // some hit depends on undecided matchConditions
}

// intercepts is remembered per backend and per what the webhook matches
// (not per webhook: the configurations of one project usually repeat their
// rules and selectors), because the dependency-loop check asks it of every
// pair of backends in the input.
func intercepts(w *Webhook, b backend, in *Inventory) interception {
	if in == nil {
		return simulateInterception(w, b, in)
	}
	type key struct{ matching, namespace, service string }
	k := key{matching: matchingSignature(w, in), namespace: b.Namespace}
	if b.Service != nil {
		k.service = b.Service.Name
	}
	compute := func() any { return simulateInterception(w, b, in) }
	if b.Service == nil && !in.describesNamespaces() {
		// Nothing of the unit reaches the simulation (no Service, so no
		// workloads; no namespace labels): loose files share it.
		return noBackendInterceptions.get(k, compute).(interception)
	}
	return in.Derived(k, compute).(interception)
}

// noBackendInterceptions holds intercepts' result for backends the unit
// does not describe, in units without Namespaces.
var noBackendInterceptions = boundedMemo{limit: 4096}

func simulateInterception(w *Webhook, b backend, in *Inventory) interception {
	res := interception{rule: -1}
	simulator := w.Simulator()
	for _, br := range backendRequests(b, in) {
		sim := simulator.Simulate(br.req)
		if sim.Outcome == Called || sim.OnlyUnknown(UnknownMatchConditions) {
			res.hits = append(res.hits, br)
			if res.rule < 0 {
				res.rule = sim.Rule
			}
			res.conditional = res.conditional || sim.Outcome == MaybeCalled
		}
	}
	return res
}

// backendRequests is requestsFor once per backend of a unit, not once per
// webhook it is simulated with (the dependency-loop check simulates every
// webhook against every backend). A backend is its namespace and Service,
// as findBackend resolves them.
func backendRequests(b backend, in *Inventory) []backendRequest {
	compute := func() any { return requestsFor(b, in.AssumedNamespaceLabels(b.Namespace)) }
	if in == nil {
		return compute().([]backendRequest)
	}
	type key struct{ namespace, service string }
	k := key{namespace: b.Namespace}
	if b.Service != nil {
		k.service = b.Service.Name
	}
	return in.Derived(k, compute).([]backendRequest)
}

// exclusionAt is where a finding whose fix is an exclusion is located: the
// namespaceSelector the webhook writes, else the rule that intercepts
// (a selector is added beside it; a Go literal's missing fields are not
// positioned).
func exclusionAt(w *Webhook, rule int) (path string, atKey bool) {
	if w.NamespaceSelector != nil {
		return w.FieldString("namespaceSelector"), true
	}
	return PathString(w.FieldPath("rules").Index(rule)), false
}

// selfDeadlocks reports whether self-deadlock reports w: it fails closed
// on requests its own backend makes or needs.
func selfDeadlocks(p *Pass, w *Webhook) bool {
	ref := w.ClientConfig.Service
	return w.FailsClosed() && ref != nil && ref.Namespace != "" && len(intercepts(w, findBackend(p.Input, ref), p.Input).hits) > 0
}

func checkSelfDeadlock(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		ref := w.ClientConfig.Service
		if !w.FailsClosed() || ref == nil || ref.Namespace == "" {
			continue
		}
		b := findBackend(p.Input, ref)
		if own := intercepts(w, b, p.Input); len(own.hits) > 0 {
			// The backend's requests carry its namespace's assumed labels.
			unset := unsetOptOutKeys(w.NamespaceSelector, own.hits[0].req.NamespaceLabels)
			path, atKey := exclusionAt(w, own.rule)
			p.Emit(Finding{Path: path, AtKey: atKey, Message: deadlockMessage(b, own.hits, own.conditional, p.Input.Base, p.Input.Listed[p.Config.Kind], unset),
				Assumes: Fragment(p, w)})
			continue
		}
		checkDependencyLoops(p, w, b)
	}
}

// checkDependencyLoops reports webhooks whose backends block each other
// (webhook-facts D09): when both are down, neither can come back. Only
// backends whose Service and workloads are in the input take part, so a
// loop is never built from guesses.
func checkDependencyLoops(p *Pass, w *Webhook, b backend) {
	if b.Service == nil || len(b.Workloads) == 0 {
		return
	}
	type loop struct {
		other        *Webhook
		backend      backend
		ours, theirs interception
	}
	var loops []loop
	groups := loopCandidates(p.Input)
	for _, gi := range interceptableGroups(w, p.Input) {
		g := groups[gi]
		if g.backend.Namespace == b.Namespace && g.backend.Service.Name == b.Service.Name {
			continue
		}
		// What this webhook does to the other backend is the same for every
		// webhook served by it: decide it once per backend.
		ours := intercepts(w, g.backend, p.Input)
		if len(ours.hits) == 0 {
			continue
		}
		for _, o := range g.webhooks {
			if theirs := intercepts(o, b, p.Input); len(theirs.hits) > 0 {
				loops = append(loops, loop{o, g.backend, ours, theirs})
				break // one loop per pair of backends
			}
		}
	}
	switch {
	case len(loops) == 0:
		return
	case len(loops) == 1:
		l := loops[0]
		path, atKey := exclusionAt(w, l.ours.rule)
		p.Emit(Finding{Path: path, AtKey: atKey, Message: fmt.Sprintf(
			"webhook fails closed in a dependency loop with webhook %q: it blocks %s, and that webhook blocks %s; "+
				"exclude each other's namespaces (%q, %q) or fail open",
			excerpt(l.other.Name, 60), briefHits(l.ours.hits), briefHits(l.theirs.hits), l.backend.Namespace, b.Namespace)})
	default:
		// One finding per webhook however many backends it is caught up
		// with: the fix (exclude their namespaces or fail open) is one edit.
		// Each of them is reported too, with the namespaces it must exclude.
		var namespaces []string
		for _, l := range loops {
			if ns := strconv.Quote(l.backend.Namespace); !slices.Contains(namespaces, ns) {
				namespaces = append(namespaces, ns)
			}
		}
		path, atKey := exclusionAt(w, loops[0].ours.rule)
		p.Emit(Finding{Path: path, AtKey: atKey, Message: fmt.Sprintf(
			"fails closed in dependency loops with %d webhooks; exclude their namespaces (%s) or fail open",
			len(loops), listNames(namespaces, 1))})
	}
}

// briefHits names the first request intercepted and the object it is for.
func briefHits(hits []backendRequest) string {
	s := hits[0].String()
	if who := hits[0].who; who != "" {
		s += " for " + who
	}
	if len(hits) > 1 {
		s += fmt.Sprintf(" and %d more", len(hits)-1)
	}
	return s
}

// backendGroup is a backend in the input and the fail-closed webhooks it serves.
type backendGroup struct {
	backend  backend
	webhooks []*Webhook
}

// loopCandidates groups the input's fail-closed webhooks by the backend
// they call, keeping only backends whose Service and workloads are in the
// input, in input order. It is computed once per run.
func loopCandidates(in *Inventory) []backendGroup {
	type key struct{}
	return in.Derived(key{}, func() any {
		var groups []backendGroup
		index := map[string]int{}
		for _, c := range in.Configs {
			for k := range c.Webhooks {
				o := &c.Webhooks[k]
				ref := o.ClientConfig.Service
				if !o.FailsClosed() || ref == nil {
					continue
				}
				id := ref.Namespace + "/" + ref.Name
				i, ok := index[id]
				if !ok {
					ob := findBackend(in, ref)
					if ob.Service == nil || len(ob.Workloads) == 0 {
						index[id] = -1
						continue
					}
					i = len(groups)
					index[id] = i
					groups = append(groups, backendGroup{backend: ob})
				}
				if i >= 0 {
					groups[i].webhooks = append(groups[i].webhooks, o)
				}
			}
		}
		return groups
	}).([]backendGroup)
}

// requestKind is what of a request decides whether a webhook's rules match
// it (Webhook.matchingRule): operation, group, version, resource,
// subresource, whether it has a namespace, and the versions it is served in
// (none given: the built-in table's).
type requestKind struct {
	op                                    admissionv1.OperationType
	group, version, resource, subresource string
	namespaced                            bool
	served                                string
	servedGiven                           bool
}

// groupsByKind indexes loopCandidates' groups by the kinds of request
// their backends make (backendRequests, which the simulations then reuse):
// for each kind, one request of it and the indexes of the groups making
// it, ascending.
type groupsByKind struct {
	requests []*Request
	groups   [][]int
}

func loopGroupsByKind(in *Inventory) groupsByKind {
	type key struct{}
	return in.Derived(key{}, func() any {
		var x groupsByKind
		at := map[requestKind]int{}
		for gi, g := range loopCandidates(in) {
			for _, br := range backendRequests(g.backend, in) {
				r := br.req
				k := requestKind{r.Operation, r.Group, r.Version, r.Resource, r.Subresource, r.Namespace != "",
					strings.Join(r.EquivalentVersions, ","), r.EquivalentVersions != nil}
				i, ok := at[k]
				if !ok {
					i = len(x.requests)
					at[k] = i
					x.requests = append(x.requests, r)
					x.groups = append(x.groups, nil)
				}
				if gs := x.groups[i]; len(gs) == 0 || gs[len(gs)-1] != gi {
					x.groups[i] = append(gs, gi)
				}
			}
		}
		return x
	}).(groupsByKind)
}

// interceptableGroups are the indexes of loopCandidates' groups, ascending,
// whose backends make a request w's rules match. A webhook whose rules
// match none of a backend's requests intercepts none of them, whatever its
// selectors: checkDependencyLoops simulates only these, not every backend
// of the unit for every webhook (quadratic in a folder of thousands of
// apps, each a fail-closed webhook with its backend).
func interceptableGroups(w *Webhook, in *Inventory) []int {
	x := loopGroupsByKind(in)
	var out []int
	kinds := 0
	for i, r := range x.requests {
		if w.matchingRule(r) >= 0 {
			out = append(out, x.groups[i]...)
			kinds++
		}
	}
	if kinds > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// requestsOf lists, once each, the intercepted requests made for who.
func requestsOf(hits []backendRequest, who string) []string {
	var reqs []string
	for _, h := range hits {
		if h.who == who && !slices.Contains(reqs, h.String()) {
			reqs = append(reqs, h.String())
		}
	}
	return reqs
}

// deadlockMessage says what the webhook blocks and how to stop it. unset
// are the opt-out labels its namespaceSelector relies on that the
// backend's namespace does not carry. listed is set when the input holds
// every configuration of the kind, as a cluster's list does (webhooklint
// cluster), whose input has no Services nor workloads: the backend is
// then any pod of the Service's namespace.
func deadlockMessage(b backend, hits []backendRequest, conditional, base, listed bool, unset []string) string {
	verb := "blocks"
	if conditional {
		verb = "may block" // matchConditions the rule cannot decide may exclude them
	}
	if len(unset) > 0 && !base {
		// The selector means to exclude the namespace through a label
		// nobody sets; the label is the one it tests, where the finding is.
		return fmt.Sprintf("%s its backend in %q; opt-out label unset: exclude by %s NotIn [%s], or fail open",
			verb, b.Namespace, LabelMetadataName, b.Namespace)
	}
	// The first of what it blocks, with its first request: the fix is the
	// same for all of them.
	// A workload of the backend first, its Secrets last.
	whos := uniqueWho(hits)
	slices.SortStableFunc(whos, func(a, b string) int { return whoOrder(a) - whoOrder(b) })
	var what string
	switch who := whos[0]; {
	case who == "" && listed:
		what = "any pod in its namespace"
	case who == "" && b.Service != nil:
		what = "pods (no workload matches its Service)"
	case who == "":
		what = "pods (Service not in the input)"
	case who == secretsWho:
		what = who
	default:
		// The fix names the namespace: the workload is named without it.
		what = strings.Replace(who, `"`+b.Namespace+"/", `"`, 1)
		if len(whos) == 1 {
			what += " (" + listNames(requestsOf(hits, who), 1) + ")"
		}
	}
	if len(whos) > 1 {
		what += fmt.Sprintf(" and %d more", len(whos)-1)
	}
	if base {
		// kustomize's namespace transformer rewrites the Service's
		// namespace but not selector values: NotIn [system] would exclude
		// a namespace that no longer exists once the overlay is applied.
		return fmt.Sprintf("%s its backend: %s; in the overlay, exclude its namespace or fail open", verb, what)
	}
	return fmt.Sprintf("%s its backend: %s; exclude namespace %q or fail open", verb, what, b.Namespace)
}

func whoOrder(who string) int {
	switch who {
	case "":
		return 1
	case secretsWho:
		return 2
	}
	return 0
}

func uniqueWho(hits []backendRequest) []string {
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.who) {
			out = append(out, h.who)
		}
	}
	return out
}
