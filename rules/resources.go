package rules

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

//go:generate sh -c "go run gen_resources.go $(go env GOMODCACHE)/k8s.io/kubernetes@v1.37.2/api/discovery"

// BuiltinResource is one built-in resource or subresource as admission
// webhooks see it. The table (resources_table.go) is generated from the
// discovery documents of the reference release, so it lists alpha and beta
// versions a default cluster does not serve; legacyResources adds the few
// removed resources old manifests still name.
type BuiltinResource struct {
	Group       string // "" is the core group
	Resource    string // plural, e.g. "pods"
	Subresource string // e.g. "exec"; empty for the resource itself
	// Kind of the object a webhook receives: PodExecOptions for pods/exec,
	// Scale for deployments/scale.
	Kind       string
	Namespaced bool
	Versions   []string // GA first, then beta, then alpha
	// Operations are the admission operations requests on it carry. Read-only
	// resources (pods/log, componentstatuses) are not in the table at all.
	Operations []admissionv1.OperationType
	// RemovedIn is the release that stopped serving a legacy resource.
	RemovedIn string
}

// String names the resource the way kubectl does: resource[.group][/subresource].
func (r BuiltinResource) String() string {
	s := r.Resource
	if r.Group != "" {
		s += "." + r.Group
	}
	if r.Subresource != "" {
		s += "/" + r.Subresource
	}
	return s
}

// HasObjectMeta reports whether the object webhooks receive carries
// metadata. The options objects of CONNECT requests (PodExecOptions,
// NodeProxyOptions…) carry none, so a non-empty objectSelector never
// matches them (webhook-facts C06).
func (r BuiltinResource) HasObjectMeta() bool {
	return !slices.Contains(r.Operations, admissionv1.Connect)
}

// IsNamespace reports whether this is the namespaces resource or one of its
// subresources: cluster-scoped, but namespaceSelector is evaluated against
// its own labels (C07) and scope Namespaced never matches it (C04).
func (r BuiltinResource) IsNamespace() bool {
	return r.Group == "" && r.Resource == "namespaces"
}

// legacyResources are removed resources still found in manifests, so that
// their scope is known (podsecuritypolicies are cluster-scoped).
var legacyResources = []BuiltinResource{
	{Group: "extensions", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.16"},
	{Group: "extensions", Resource: "deployments", Kind: "Deployment", Namespaced: true, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.16"},
	{Group: "extensions", Resource: "deployments", Subresource: "scale", Kind: "Scale", Namespaced: true, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Update}, RemovedIn: "1.16"},
	{Group: "extensions", Resource: "ingresses", Kind: "Ingress", Namespaced: true, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.22"},
	{Group: "extensions", Resource: "networkpolicies", Kind: "NetworkPolicy", Namespaced: true, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.16"},
	{Group: "extensions", Resource: "podsecuritypolicies", Kind: "PodSecurityPolicy", Namespaced: false, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.16"},
	{Group: "extensions", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.16"},
	{Group: "policy", Resource: "podsecuritypolicies", Kind: "PodSecurityPolicy", Namespaced: false, Versions: []string{"v1beta1"}, Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete}, RemovedIn: "1.25"},
}

var (
	builtinOnce   sync.Once
	builtinAll    []BuiltinResource
	builtinByKey  map[string]int
	builtinGroups map[string]bool
	// builtinSpan is where each group's resources are in builtinAll
	// (sorted by group, so each group is one run).
	builtinSpan map[string]span
)

type span struct{ from, to int }

func builtinKey(group, resource, subresource string) string {
	return group + "|" + resource + "|" + subresource
}

func loadBuiltins() {
	builtinOnce.Do(func() {
		builtinAll = slices.Concat(builtinTable, legacyResources)
		slices.SortFunc(builtinAll, func(a, b BuiltinResource) int {
			return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Resource, b.Resource),
				strings.Compare(a.Subresource, b.Subresource))
		})
		builtinByKey = make(map[string]int, len(builtinAll))
		builtinGroups = map[string]bool{}
		builtinSpan = map[string]span{}
		for i, r := range builtinAll {
			builtinByKey[builtinKey(r.Group, r.Resource, r.Subresource)] = i
			builtinGroups[r.Group] = true
			sp, ok := builtinSpan[r.Group]
			if !ok {
				sp.from = i
			}
			sp.to = i + 1
			builtinSpan[r.Group] = sp
		}
	})
}

// BuiltinResources returns every known built-in resource and subresource,
// sorted by group, resource, subresource. Callers must not modify it.
func BuiltinResources() []BuiltinResource {
	loadBuiltins()
	return builtinAll
}

// LookupBuiltin finds a built-in resource; subresource is "" for the
// resource itself.
func LookupBuiltin(group, resource, subresource string) (BuiltinResource, bool) {
	loadBuiltins()
	i, ok := builtinByKey[builtinKey(group, resource, subresource)]
	if !ok {
		return BuiltinResource{}, false
	}
	return builtinAll[i], true
}

// IsBuiltinGroup reports whether group is served by the API server itself.
// webhooklint assumes such a group holds only the resources in the table:
// custom resources and aggregated APIs live in groups of their own.
func IsBuiltinGroup(group string) bool {
	loadBuiltins()
	return builtinGroups[group]
}

// RuleTargets is what one webhook rule can match.
type RuleTargets struct {
	// Builtin lists the built-in (sub)resources the rule can match, each
	// with Operations narrowed to those the rule selects.
	Builtin []BuiltinResource
	// Others is true when the rule can also match resources outside the
	// table (a "*" group or a group that is not built in: custom resources,
	// aggregated APIs). Their scope is then only known from the rule's scope.
	Others bool
}

// ExpandRule resolves a rule's groups, resources, operations and scope
// against the built-in table, with the API server's matching semantics
// (webhook-facts C04): "*" matches any group, resource or operation; a
// plain resource or "*" matches only requests without a subresource;
// "x/*" every subresource of x; "*/y" subresource y of any resource; scope
// Namespaced never matches namespaces, scope Cluster always does.
//
// Versions are not considered: a resource's scope, subresources and
// operations do not change between versions, and matchPolicy Equivalent
// (the v1 default) reaches a resource through any version it serves.
//
// The result is shared: callers must not modify it.
func ExpandRule(r admissionv1.RuleWithOperations) RuleTargets {
	// Six rules ask for every rule of every webhook, and projects repeat
	// their rules: the expansions are remembered for the process, and
	// looked up without allocating.
	k := borrowKey()
	defer keyBuffers.Put(k)
	k.expansion(r)
	return expansions.get(*k, func() RuleTargets { return expandRule(r) })
}

// expansions holds ExpandRule's results. One is up to a few hundred
// resources, so fewer are kept than boundedMemo's other users keep.
var expansions = contentMemo[RuleTargets]{limit: 256}

// expansion writes everything of a rule ExpandRule reads (not versions).
func (k *keyBuilder) expansion(r admissionv1.RuleWithOperations) {
	k.strs(r.APIGroups)
	k.strs(r.Resources)
	k.ops(r.Operations)
	k.str(string(EffectiveScope(r.Rule)))
}

func expandRule(r admissionv1.RuleWithOperations) RuleTargets {
	loadBuiltins()
	var t RuleTargets
	for _, g := range r.APIGroups {
		if g == "*" || !IsBuiltinGroup(g) {
			t.Others = true
		}
	}
	scope := EffectiveScope(r.Rule)
	for res := range builtinsOfGroups(r.APIGroups) {
		if !ruleHasResource(r.Resources, res.Resource, res.Subresource) {
			continue
		}
		if !scopeAdmits(scope, res) {
			continue
		}
		ops := ruleOperationsOn(r.Operations, res.Operations)
		if len(ops) == 0 {
			continue
		}
		// Clipped: a caller appending to a shared result's operations
		// gets a copy instead of writing into it.
		res.Operations = slices.Clip(ops)
		t.Builtin = append(t.Builtin, res)
	}
	t.Builtin = slices.Clip(t.Builtin)
	return t
}

// builtinsOfGroups returns the built-in resources of the groups a rule
// names (all of them for "*"), in builtinAll's order: a rule on the core
// group looks at its few dozen resources, not at every one.
func builtinsOfGroups(groups []string) iter.Seq[BuiltinResource] {
	return func(yield func(BuiltinResource) bool) {
		if slices.Contains(groups, "*") {
			for _, res := range builtinAll {
				if !yield(res) {
					return
				}
			}
			return
		}
		var spans []span
		for _, g := range groups {
			if sp, ok := builtinSpan[g]; ok && !slices.Contains(spans, sp) {
				spans = append(spans, sp)
			}
		}
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
		for _, sp := range spans {
			for i := sp.from; i < sp.to; i++ {
				if !yield(builtinAll[i]) {
					return
				}
			}
		}
	}
}

// ruleHasGroup is exactOrWildcard from the API server's rule matcher.
func ruleHasGroup(groups []string, group string) bool {
	return slices.Contains(groups, "*") || slices.Contains(groups, group)
}

// ruleHasResource is the API server's resource() match of one request
// (resource, subresource) against a rule's resources list.
func ruleHasResource(patterns []string, resource, subresource string) bool {
	for _, p := range patterns {
		res, sub, _ := strings.Cut(p, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

// scopeAdmits applies a rule's scope to a known resource.
func scopeAdmits(scope admissionv1.ScopeType, res BuiltinResource) bool {
	switch scope {
	case admissionv1.NamespacedScope:
		return res.Namespaced && !res.IsNamespace()
	case admissionv1.ClusterScope:
		return !res.Namespaced || res.IsNamespace()
	}
	return true
}

// ruleOperationsOn intersects a rule's operations with those a resource
// receives, keeping the resource's order.
func ruleOperationsOn(ruleOps, resourceOps []admissionv1.OperationType) []admissionv1.OperationType {
	if slices.Contains(ruleOps, admissionv1.OperationAll) {
		return slices.Clone(resourceOps)
	}
	var out []admissionv1.OperationType
	for _, op := range resourceOps {
		if slices.Contains(ruleOps, op) {
			out = append(out, op)
		}
	}
	return out
}
