package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// SystemCriticalScopeRule is the name of the rule, for the packages that judge its findings.
const SystemCriticalScopeRule = "system-critical-scope"

func init() {
	register(&Rule{
		Name:     SystemCriticalScopeRule,
		Summary:  "a fail-closed webhook can intercept requests the control plane and nodes depend on",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "While a fail-closed webhook (`failurePolicy: Fail`, the v1 default) is down, slow or " +
				"unreachable, every request it matches is rejected. For most objects that is the point; for " +
				"the requests that keep the cluster itself alive it turns a webhook outage into a cluster " +
				"outage:\n\n" +
				"- kubelets renew their node Lease in `kube-node-lease` every 10 s and update Node status; " +
				"when that fails for 40 s the node is marked NotReady and its pods are evicted;\n" +
				"- kube-controller-manager and kube-scheduler renew their leader-election Leases in " +
				"`kube-system`; a renewal that times out loses leadership (Gatekeeper and kubernetes#107678 " +
				"report control planes stuck this way);\n" +
				"- kubelets create CertificateSigningRequests to rotate their certificates;\n" +
				"- system pods, ConfigMaps, Secrets, Endpoints and EndpointSlices in `kube-system` (DNS, " +
				"CNI, kube-proxy) must be created and updated to recover from exactly the kind of failure " +
				"that took the webhook down;\n" +
				"- a webhook that intercepts Events intercepts the Events written about its own requests, " +
				"and before Kubernetes 1.37 one intercepting TokenReviews or SubjectAccessReviews breaks " +
				"authentication or authorization.\n\n" +
				"The rule simulates these requests against the webhook after the server's defaults and " +
				"reports, once per webhook, which of them it can intercept. Excluding `kube-system` and " +
				"`kube-node-lease` with a namespaceSelector on `kubernetes.io/metadata.name` or a " +
				"matchCondition on `request.namespace` or `request.userInfo.groups` is recognized. An opt-out " +
				"label (`control-plane DoesNotExist`, `name NotIn [kube-system]`) excludes a namespace only once " +
				"someone labels it: the API server sets no label but `kubernetes.io/metadata.name`, so the rule " +
				"counts such a label only when the unit sets it, on a Namespace object or from a workload that " +
				"runs `kubectl label ns`, exactly as self-deadlock does, and otherwise names the label the " +
				"exclusion waits for. A finding on namespaced requests of a webhook whose unit holds no Service " +
				"(not the one it calls, nor another) is info: the configuration is a part of an install whose overlay or installer " +
				"may add the exclusion, unless `units.entries` or a GitOps entry gives that it is applied as written " +
				"(docs/sources.md, \"Parts of an install\"). " +
				"namespaceSelector never excludes cluster-scoped Nodes and CertificateSigningRequests.\n\n" +
				"When the webhook's own backend runs in kube-system and self-deadlock reports it, the kube-system " +
				"requests are that finding's (excluding the backend's namespace fixes both) and this rule reports " +
				"only the rest.\n\n" +
				"Like every finding on a configuration the API server accepts, this is a warning. The " +
				"message names what the webhook reaches, and the list above says what each costs: node " +
				"Leases and Nodes are node heartbeats (nodes go NotReady), kube-system Leases leader " +
				"election (the scheduler and controller manager lose leadership), Token/SubjectAccessReviews " +
				"(before 1.37) authentication and authorization; there an outage spreads to the whole " +
				"cluster within a minute without anyone touching it. It names up to three kinds of requests and, " +
				"for more, the first and how many more; `kube-*` in its fix means `kube-system` and " +
				"`kube-node-lease`. \"Opt-out label unset\" says that the namespaceSelector at the finding " +
				"excludes those namespaces only by a label nothing sets. \"May fail closed\" marks requests the webhook's matchConditions " +
				"may exclude in ways the rule cannot decide.",
			Fix: "List only the resources the webhook needs; exclude `kube-system` and `kube-node-lease` " +
				"with a namespaceSelector on `kubernetes.io/metadata.name`; keep Nodes, Leases, Events and " +
				"CertificateSigningRequests out of the rules (or exclude `system:nodes` with a " +
				"matchCondition); or fail open (`failurePolicy: Ignore`) where enforcement is not critical.",
			Sources: []string{
				docsWebhooks + "#avoiding-operating-on-the-kube-system-namespace",
				docsGoodPractices,
				docsGKEWebhooks,
				incidentGKEOutage,
				issueUnsetNameLabel,
				issueLeaderElection,
				issueNodeLeases,
				issueAuthnReviews,
				issueBroadRules,
			},
		},
		Fixes: []FixDoc{{
			Name:          "exclude-system-namespaces",
			Title:         "exclude kube-system and kube-node-lease with a namespaceSelector",
			Applicability: diag.Unsafe,
			Why: "Offered where the webhook writes no namespaceSelector and excluding the two namespaces is the whole " +
				"fix (the rule runs its simulation again with the selector and finds nothing left). It inserts a " +
				"namespaceSelector with `kubernetes.io/metadata.name NotIn [kube-system, kube-node-lease]`, the label " +
				"the API server sets on every namespace, so it holds without anyone labeling them. It is unsafe: the " +
				"webhook stops seeing requests in those namespaces, which is what a maintainer wants for a policy " +
				"webhook and wrong for one whose job is kube-system itself.",
		}},
		Check: checkSystemCriticalScope,
	})
}

// excludeSystemNamespaces is the namespaceSelector the
// exclude-system-namespaces fix writes, as the rule reads it and as text.
var (
	excludeSystemNamespaces = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", "kube-node-lease"},
	}}}
	excludeSystemNamespacesText = Mapping{{Name: "matchExpressions", Value: []Mapping{{
		{Name: "key", Value: LabelMetadataName},
		{Name: "operator", Value: string(metav1.LabelSelectorOpNotIn)},
		{Name: "values", Value: []string{"kube-system", "kube-node-lease"}},
	}}}}
)

// excludeSystemNamespacesFix is the fix that inserts a namespaceSelector
// excluding kube-system and kube-node-lease, when w writes none and the
// rule, run again with it, has nothing left to say.
func excludeSystemNamespacesFix(p *Pass, w *Webhook) []FieldFix {
	if w.NamespaceSelector != nil {
		return nil
	}
	fixed := *w
	fixed.NamespaceSelector = excludeSystemNamespaces
	after := criticalScopeMessage(webhookCriticalSubject(&fixed), sharedCriticalTargets(p.Input, p.Settings.KubeVersion), selfDeadlockNamespace(p, w))
	if after.msg != "" {
		return nil
	}
	return []FieldFix{{Fix: "exclude-system-namespaces", Edits: []FieldEdit{{
		Path: w.FieldPath("namespaceSelector").String(), Insert: true,
		Value: excludeSystemNamespacesText, After: webhookFieldsBefore("namespaceSelector"),
	}}}}
}

// criticalTarget is one family of requests the cluster depends on.
type criticalTarget struct {
	what string
	// clusterWide marks a target that no kustomize overlay's namespace or
	// names move (node Leases); a fix of fixCluster marks one too.
	clusterWide bool
	// fix is how to keep the webhook away from the target.
	fix string
	// listResources names each resource of reqs that is hit, after
	// listAs instead of what.
	listResources bool
	listAs        string
	reqs          []*Request
}

var (
	fixNamespaces = "exclude kube-* namespaces" // kube-system and kube-node-lease, as the doc says
	fixCluster    = "narrow the rules for cluster-scoped objects"
	fixEvents     = "drop events from the rules"
)

var nodeUser = []string{"system:nodes", "system:authenticated"}

// criticalTargets builds the catalog (webhook-facts G07) for one run.
// Objects are assumed to carry no labels the webhook selects on: system
// objects do not carry a webhook's opt-in labels, nor its opt-out labels.
// Namespaces carry what the unit says (AssumedNamespaceLabels): an
// exclusion keyed on a label nobody sets excludes nothing, as self-deadlock
// judges it too.
func criticalTargets(in *Inventory, kube KubeVersion) []criticalTarget {
	nsLabels := func(ns string) *Labels { return in.AssumedNamespaceLabels(ns) }
	req := func(op admissionv1.OperationType, group, resource, sub, ns string) *Request {
		r := &Request{Operation: op, Group: group, Version: "v1", Resource: resource, Subresource: sub,
			Namespace: ns, Object: KnownLabels(nil)}
		if ns != "" {
			r.NamespaceLabels = nsLabels(ns)
		}
		if op == admissionv1.Update {
			r.OldObject = r.Object
		}
		return r
	}
	kubelet := func(r *Request) *Request { r.UserGroups = nodeUser; return r }
	createUpdate := func(group, resource, ns string) []*Request {
		return []*Request{req(admissionv1.Create, group, resource, "", ns), req(admissionv1.Update, group, resource, "", ns)}
	}
	const ks = "kube-system"
	targets := []criticalTarget{
		{what: "node Leases", clusterWide: true, reqs: []*Request{
			kubelet(req(admissionv1.Update, "coordination.k8s.io", "leases", "", "kube-node-lease")),
			kubelet(req(admissionv1.Create, "coordination.k8s.io", "leases", "", "kube-node-lease")),
		}},
		{what: "Nodes", fix: fixCluster, reqs: []*Request{
			kubelet(req(admissionv1.Update, "", "nodes", "status", "")),
			kubelet(req(admissionv1.Update, "", "nodes", "", "")),
			kubelet(req(admissionv1.Create, "", "nodes", "", "")),
		}},
		{what: "kube-system Leases", reqs: createUpdate("coordination.k8s.io", "leases", ks)},
		{what: "CSRs (kubelet certificates)", fix: fixCluster, reqs: []*Request{
			req(admissionv1.Create, "certificates.k8s.io", "certificatesigningrequests", "", ""),
		}},
		{what: "kube-system Endpoints(Slices)", reqs: slices.Concat(
			createUpdate("", "endpoints", ks), createUpdate("discovery.k8s.io", "endpointslices", ks))},
		{what: "kube-system objects", listResources: true, listAs: "kube-system", reqs: slices.Concat(
			[]*Request{req(admissionv1.Create, "", "pods", "", ks), kubelet(req(admissionv1.Update, "", "pods", "status", ks))},
			createUpdate("", "configmaps", ks), createUpdate("", "secrets", ks), createUpdate("", "services", ks),
			[]*Request{kubelet(req(admissionv1.Create, "", "serviceaccounts", "token", ks))},
			createUpdate("apps", "daemonsets", ks), createUpdate("apps", "deployments", ks),
			createUpdate("apps", "replicasets", ks))},
	}
	events := criticalTarget{what: "Events (also those about its own requests)", fix: fixEvents}
	for _, g := range []string{"", "events.k8s.io"} {
		for _, ns := range []string{ks, "default"} {
			r := req(admissionv1.Create, g, "events", "", ns)
			if ns == "default" {
				// An ordinary namespace: assumed to carry no labels
				// beyond its name.
				r.NamespaceLabels = r.NamespaceLabels.Assume()
			}
			events.reqs = append(events.reqs, r)
		}
	}
	targets = append(targets, events)
	if !kube.AtLeast(virtualReviewsExcludedSince) {
		targets = append(targets, criticalTarget{
			what: "Token/SubjectAccessReviews", fix: fixCluster,
			reqs: []*Request{
				req(admissionv1.Create, "authentication.k8s.io", "tokenreviews", "", ""),
				req(admissionv1.Create, "authorization.k8s.io", "subjectaccessreviews", "", ""),
			},
		})
	}
	return targets
}

func checkSystemCriticalScope(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if !w.FailsClosed() || len(w.Rules) == 0 {
			continue
		}
		cs := systemCritical(p, w)
		if cs.msg == "" {
			continue
		}
		// Located where the fix goes: the namespaceSelector when excluding
		// kube-system is the fix and the webhook has one, else the rules
		// (narrowed, or where a selector is added beside them).
		at, atKey := w.FieldPath("rules"), false
		if cs.exclude && w.NamespaceSelector != nil {
			at, atKey = w.FieldPath("namespaceSelector"), true
		}
		var fixes []FieldFix
		if cs.exclude {
			fixes = excludeSystemNamespacesFix(p, w)
		}
		var assumes string
		if !cs.clusterWide {
			assumes = Fragment(p, w)
		}
		p.Emit(Finding{Path: PathString(at), AtKey: atKey, Message: cs.msg, DependsOnOverlay: !cs.clusterWide, Fixes: fixes, Assumes: assumes})
	}
}

// systemCritical is what system-critical-scope says of w, a webhook that
// fails closed: no message when it intercepts nothing the cluster needs.
func systemCritical(p *Pass, w *Webhook) criticalScope {
	ownedBySelfDeadlock := selfDeadlockNamespace(p, w)
	// The finding depends only on what the webhook matches, so webhooks
	// that repeat the same rules and selectors share one simulation.
	type key struct {
		matching string
		kube     KubeVersion
		except   string
	}
	k := key{matchingSignature(w, p.Input), p.Settings.KubeVersion, ownedBySelfDeadlock}
	compute := func() any {
		return criticalScopeMessage(webhookCriticalSubject(w), sharedCriticalTargets(p.Input, p.Settings.KubeVersion), ownedBySelfDeadlock)
	}
	if !p.Input.describesNamespaces() {
		// Without Namespaces the unit lends the simulation nothing (see
		// sharedCriticalTargets), so loose files share it process-wide.
		return noNamespaceMessages.get(k, compute).(criticalScope)
	}
	return p.Input.Derived(k, compute).(criticalScope)
}

// selfDeadlockNamespace is the namespace of w's backend when it is one the
// cluster depends on and self-deadlock reports w there: the requests in it
// are that finding's (one cause, one finding), and its fix covers them.
func selfDeadlockNamespace(p *Pass, w *Webhook) string {
	ref := w.ClientConfig.Service
	if ref == nil || (ref.Namespace != "kube-system" && ref.Namespace != "kube-node-lease") {
		return ""
	}
	if len(intercepts(w, findBackend(p.Input, ref), p.Input).hits) == 0 {
		return ""
	}
	return ref.Namespace
}

// sharedCriticalTargets is criticalTargets, built once per unit and
// version, and once per process for the units that declare no Namespace:
// the inventory only lends the requests their namespaces' labels, and a
// folder of loose files is thousands of such units.
func sharedCriticalTargets(in *Inventory, kube KubeVersion) []criticalTarget {
	if !in.describesNamespaces() {
		return noNamespaceTargets.get(kube, func() any { return criticalTargets(nil, kube) }).([]criticalTarget)
	}
	type key struct{ kube KubeVersion }
	return in.Derived(key{kube}, func() any { return criticalTargets(in, kube) }).([]criticalTarget)
}

// noNamespaceTargets holds criticalTargets(nil, kube) per Kubernetes
// version (a few at most).
var noNamespaceTargets = boundedMemo{limit: 64}

// noNamespaceMessages holds checkSystemCriticalScope's message per distinct
// matching of the webhooks in units without Namespaces.
var noNamespaceMessages = boundedMemo{limit: 4096}

// criticalScope is what system-critical-scope reports on a webhook: its
// message, whether excluding namespaces is the whole fix, and whether it
// hits what no kustomize overlay's namespace or names change (Nodes, node
// Leases, cluster-scoped objects, every resource).
type criticalScope struct {
	msg                  string
	exclude, clusterWide bool
}

// criticalSubject is what the catalog is simulated against: a webhook, or
// an admission policy through its bindings (policy-system-critical-scope).
type criticalSubject struct {
	simulate func(*Request) Simulation
	// rules are the rules Simulation.Rule indexes.
	rules []admissionv1.RuleWithOperations
	// namespaceSelector is where opt-out labels are looked for.
	namespaceSelector *metav1.LabelSelector
}

func webhookCriticalSubject(w *Webhook) criticalSubject {
	return criticalSubject{simulate: w.Simulator().Simulate,
		rules: w.Rules, namespaceSelector: w.NamespaceSelector}
}

// criticalScopeMessage simulates the catalog against one subject and says
// what it can intercept, or returns "" when it intercepts none of it.
// Requests in namespace except are left to self-deadlock.
func criticalScopeMessage(w criticalSubject, targets []criticalTarget, except string) criticalScope {
	var hits, short []string // short: without the parenthesized details
	var fixes []string
	// unlabeled are the namespaces hit only because they lack the
	// opt-out labels of the namespaceSelector.
	var unlabeled []string
	conditional, clusterWide := false, false
	for _, t := range targets {
		var hitResources []string
		for _, r := range t.reqs {
			if except != "" && r.Namespace == except {
				continue
			}
			sim := w.simulate(r)
			if sim.Outcome != Called && !sim.OnlyUnknown(UnknownMatchConditions) {
				continue
			}
			if sim.Rule >= 0 && namedVirtualReview(w.rules[sim.Rule], r) {
				continue // never-sent-resources reports reviews named in a rule
			}
			conditional = conditional || sim.Outcome == MaybeCalled
			if r.Namespace != "" && r.NamespaceLabels != nil && !r.NamespaceLabels.Partial && !slices.Contains(unlabeled, r.Namespace) {
				if keys := unsetOptOutKeys(w.namespaceSelector, r.NamespaceLabels); len(keys) > 0 && r.Namespace != "default" {
					unlabeled = append(unlabeled, r.Namespace)
				}
			}
			if name := resourceName(r); !slices.Contains(hitResources, name) {
				hitResources = append(hitResources, name)
			}
			if !t.listResources {
				break
			}
		}
		if len(hitResources) == 0 {
			continue
		}
		what := t.what
		if t.listResources {
			if len(hitResources) > 3 {
				hitResources = append(hitResources[:3], "…")
			}
			what = t.listAs + " " + strings.Join(hitResources, ", ")
		}
		hits = append(hits, what)
		clusterWide = clusterWide || t.clusterWide || t.fix == fixCluster
		name, _, _ := strings.Cut(t.what, " (")
		short = append(short, name)
		fix := t.fix
		if fix == "" {
			fix = fixNamespaces
		}
		if !slices.Contains(fixes, fix) {
			fixes = append(fixes, fix)
		}
	}
	if len(hits) == 0 {
		return criticalScope{}
	}
	// Details only for one or two families, names for three, the first
	// one's name for more: the fix is the same however many there are, and
	// the line stays readable. What the cluster loses through each target
	// is the doc's to say: the line names the targets and the fix.
	var msg strings.Builder
	if conditional {
		// matchConditions the rule cannot decide may exclude them.
		msg.WriteString("may fail closed on ")
	} else {
		msg.WriteString("fails closed on ")
	}
	switch {
	case len(hits) > 3:
		fmt.Fprintf(&msg, "%s and %d more", short[0], len(short)-1)
	case len(hits) > 2:
		msg.WriteString(strings.Join(short, ", "))
	default:
		msg.WriteString(strings.Join(hits, "; "))
	}
	if matchesEverything(w.rules) && !slices.Contains(fixes, fixCluster) {
		fixes = append(fixes, fixCluster) // rules for everything: narrowing them is the fix
	}
	// The first fix, namespaces before the rest, and failing open.
	slices.SortStableFunc(fixes, func(a, b string) int { return fixOrder(a) - fixOrder(b) })
	scope := criticalScope{
		exclude:     len(fixes) == 1 && fixes[0] == fixNamespaces,
		clusterWide: clusterWide || matchesEverything(w.rules),
	}
	if len(unlabeled) > 0 && fixes[0] == fixNamespaces {
		// The selector means to exclude them, through a label that the
		// server does not set and nothing in the unit sets either: the
		// label is the one the selector at the finding tests.
		fmt.Fprintf(&msg, "; opt-out label unset: exclude by %s", LabelMetadataName)
		if len(fixes) > 1 {
			msg.WriteString(" or narrow the rules")
		}
		scope.msg = msg.String()
		return scope
	}
	switch {
	case len(fixes) > 1 && fixes[0] == fixNamespaces:
		msg.WriteString("; exclude kube-*, narrow rules, or fail open")
	default:
		msg.WriteString("; " + fixes[0] + ", or fail open")
	}
	scope.msg = msg.String()
	return scope
}

// namedVirtualReview reports whether r is a virtual review request that
// rule names explicitly: never-sent-resources owns that case.
func namedVirtualReview(rule admissionv1.RuleWithOperations, r *Request) bool {
	known, ok := virtualReviewResources[r.Group]
	return ok && slices.Contains(namedResources(rule.Rule, r.Group, known, false), r.Resource+"."+r.Group)
}

func matchesEverything(rs []admissionv1.RuleWithOperations) bool {
	for _, r := range rs {
		if slices.Contains(r.APIGroups, "*") && (slices.Contains(r.Resources, "*") || slices.Contains(r.Resources, "*/*")) {
			return true
		}
	}
	return false
}

// resourceName names a request's resource the way kubectl does:
// resource[.group][/subresource].
func resourceName(r *Request) string {
	s := r.Resource
	if r.Group != "" {
		s += "." + r.Group
	}
	if r.Subresource != "" {
		s += "/" + r.Subresource
	}
	return s
}

// fixOrder lists namespace exclusions first, the usual first step.
func fixOrder(fix string) int {
	return slices.Index([]string{fixNamespaces, fixCluster, fixEvents}, fix)
}
