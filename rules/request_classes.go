package rules

import (
	"encoding/binary"
	"runtime"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// Co-matching rules: which webhook rules can match one and the same
// request, decided on rules alone (groups, versions, resources with
// subresources, operations, scope; webhook-facts C04, C05). Selectors and
// matchConditions depend on the object and are not considered, so the
// answer is "can be called together", an upper bound.
//
// Requests on built-in resources are enumerated exactly from the table.
// Requests on other APIs (custom resources, aggregated APIs) range over the
// concrete names the rules mention plus one stand-in per dimension for "any
// other name", which only a "*" pattern matches. The search walks one
// dimension at a time and keeps one branch per distinct set of rules still
// matching, so it stays small even when many rules use wildcards.

// requestClass is one admission request shape.
type requestClass struct {
	Group, Version, Resource, Subresource string
	Operation                             admissionv1.OperationType
	Namespaced                            bool // the request carries a namespace
	Namespace                             bool // the namespaces resource itself
	// Served lists the versions a matchPolicy Equivalent rule may match
	// through; nil means any (versions of other APIs are unknown).
	Served []string
	// Equivalents are the other group/versions serving the same objects
	// (built-in requests only): other served versions, and resources
	// stored together with this one.
	Equivalents []groupVersion
	Builtin     bool
}

type groupVersion struct{ Group, Version string }

// cohabiting are served built-in resources stored together, which the API
// server treats as equivalent for matchPolicy Equivalent (its equivalence
// registry is keyed by storage prefix). From kubernetes
// pkg/kubeapiserver/default_storage_factory_builder.go; the other pairs
// there involve extensions/v1beta1, which is no longer served.
var cohabiting = map[[2]string][2]string{
	{"", "events"}:              {"events.k8s.io", "events"},
	{"events.k8s.io", "events"}: {"", "events"},
}

// Stand-ins for "a name no rule mentions".
const (
	anyGroup       = "\x00group"
	anyVersion     = "\x00version"
	anyResource    = "\x00resource"
	anySubresource = "\x00subresource"
)

// String describes the request for messages: "CREATE pods",
// "UPDATE deployments.apps/scale", "CREATE widgets.example.com (namespaced)".
func (r requestClass) String() string {
	res := r.Resource
	if res == anyResource {
		res = "any resource"
	}
	switch r.Group {
	case "":
	case anyGroup:
		res += " of any other API group"
	default:
		res += "." + r.Group
	}
	switch r.Subresource {
	case "":
	case anySubresource:
		res += " (any subresource)"
	default:
		res += "/" + r.Subresource
	}
	s := string(r.Operation) + " " + res
	if !r.Builtin {
		if r.Namespaced {
			s += " (namespaced)"
		} else {
			s += " (cluster-scoped)"
		}
	}
	return s
}

// indexedRule is one rule of one webhook, as the co-matching search sees it.
type indexedRule struct {
	Rule       admissionv1.RuleWithOperations
	Webhook    int  // caller's index of the webhook owning the rule
	Equivalent bool // the webhook's effective matchPolicy is Equivalent
	Anchor     bool // only rule sets with an anchor rule are returned
}

// ruleSet is a set of rules that can all match the request Example (and
// no other rule matches it).
type ruleSet struct {
	Example requestClass
	Rules   bitset
}

// coMatchingRuleSets returns every distinct set of rules that match one
// request and contain an anchor rule: built-in requests first in table
// order, then other APIs.
func coMatchingRuleSets(rules []indexedRule) []ruleSet {
	anchors := newBitset(len(rules))
	for i, r := range rules {
		if r.Anchor {
			anchors.set(i)
		}
	}
	var out []ruleSet
	seen := map[string]bool{}
	keep := func(q requestClass, b bitset) {
		if b.intersects(anchors) && !seen[b.key()] {
			seen[b.key()] = true
			out = append(out, ruleSet{Example: q, Rules: b})
		}
	}
	classes := builtinRequestClasses()
	for i, b := range matchBuiltinClasses(rules, classes) {
		keep(classes[i], b)
	}
	searchOtherAPIs(rules, anchors, keep)
	return out
}

// matchBuiltinClasses returns, for each class, the rules matching it. A
// rule can match only requests on a resource it names (or "*"), so each
// class tests only those rules; classes are split among all CPUs (the
// caller computes this once per run while the other workers wait for it).
func matchBuiltinClasses(rules []indexedRule, classes []requestClass) []bitset {
	byResource := map[string][]int{}
	for i, r := range rules {
		var named []string
		for _, p := range r.Rule.Resources {
			res, _, _ := strings.Cut(p, "/")
			if !slices.Contains(named, res) {
				named = append(named, res)
				byResource[res] = append(byResource[res], i)
			}
		}
	}
	out := make([]bitset, len(classes))
	match := func(k int) {
		q := classes[k]
		b := newBitset(len(rules))
		for _, candidates := range [][]int{byResource[q.Resource], byResource["*"]} {
			for _, i := range candidates {
				if ruleMatchesRequest(rules[i].Rule, rules[i].Equivalent, q) {
					b.set(i)
				}
			}
		}
		out[k] = b
	}
	workers := min(runtime.GOMAXPROCS(0), len(classes)/64+1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; k < len(classes); k += workers {
				match(k)
			}
		})
	}
	wg.Wait()
	return out
}

// ruleMatchesRequest is the API server's rule matcher (C04), extended by
// matchPolicy Equivalent to the same objects under other groups and
// versions (C05).
func ruleMatchesRequest(r admissionv1.RuleWithOperations, equivalent bool, q requestClass) bool {
	if !classScopeMatches(r, q) || !classOperationMatches(r, q.Operation) || !ruleHasResource(r.Resources, q.Resource, q.Subresource) {
		return false
	}
	if ruleHasGroup(r.APIGroups, q.Group) && classVersionMatches(r, equivalent, q.Version, q.Served) {
		return true
	}
	if !equivalent {
		return false
	}
	for _, e := range q.Equivalents {
		if ruleHasGroup(r.APIGroups, e.Group) && (slices.Contains(r.APIVersions, "*") || slices.Contains(r.APIVersions, e.Version)) {
			return true
		}
	}
	return false
}

func classScopeMatches(r admissionv1.RuleWithOperations, q requestClass) bool {
	switch EffectiveScope(r.Rule) {
	case admissionv1.NamespacedScope:
		return q.Namespaced && !q.Namespace
	case admissionv1.ClusterScope:
		return !q.Namespaced || q.Namespace
	}
	return true
}

func classOperationMatches(r admissionv1.RuleWithOperations, op admissionv1.OperationType) bool {
	return slices.Contains(r.Operations, admissionv1.OperationAll) || slices.Contains(r.Operations, op)
}

// classVersionMatches: exact or "*"; with Equivalent, any served version the
// rule lists (for other APIs, whose served versions are unknown, any).
func classVersionMatches(r admissionv1.RuleWithOperations, equivalent bool, version string, served []string) bool {
	if slices.Contains(r.APIVersions, "*") || slices.Contains(r.APIVersions, version) {
		return true
	}
	if !equivalent || len(r.APIVersions) == 0 {
		return false
	}
	if served == nil {
		return true
	}
	return slices.ContainsFunc(r.APIVersions, func(v string) bool { return slices.Contains(served, v) })
}

// builtinRequestClasses lists every request on a served built-in resource.
func builtinRequestClasses() []requestClass {
	var out []requestClass
	for _, res := range BuiltinResources() {
		if res.RemovedIn != "" {
			continue // no longer served: no requests
		}
		var equivalents []groupVersion
		if other, ok := cohabiting[[2]string{res.Group, res.Resource}]; ok {
			if o, ok := LookupBuiltin(other[0], other[1], res.Subresource); ok {
				for _, v := range o.Versions {
					equivalents = append(equivalents, groupVersion{o.Group, v})
				}
			}
		}
		for _, v := range res.Versions {
			for _, op := range res.Operations {
				out = append(out, requestClass{
					Group: res.Group, Version: v, Resource: res.Resource, Subresource: res.Subresource,
					Operation: op, Namespaced: res.Namespaced || res.IsNamespace(), Namespace: res.IsNamespace(),
					Served: res.Versions, Equivalents: equivalents, Builtin: true,
				})
			}
		}
	}
	return out
}

// searchOtherAPIs walks requests on APIs outside the table dimension by
// dimension, calling keep once per distinct set of matching rules.
func searchOtherAPIs(rules []indexedRule, anchors bitset, keep func(requestClass, bitset)) {
	groups := []string{anyGroup}
	versions := []string{anyVersion}
	resources := []string{anyResource}
	subresources := []string{"", anySubresource}
	add := func(list *[]string, v string) {
		if v != "*" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, r := range rules {
		reachesOthers := false
		for _, g := range r.Rule.APIGroups {
			if g == "*" || !IsBuiltinGroup(g) {
				reachesOthers = true
				add(&groups, g)
			}
		}
		if !reachesOthers {
			continue
		}
		for _, v := range r.Rule.APIVersions {
			add(&versions, v)
		}
		for _, p := range r.Rule.Resources {
			res, sub, _ := strings.Cut(p, "/")
			add(&resources, res)
			if sub != "" {
				add(&subresources, sub)
			}
		}
	}

	type dimension struct {
		n     int
		match func(r indexedRule, i int) bool
		apply func(q *requestClass, i int)
	}
	type pair struct{ res, sub string }
	var pairs []pair
	for _, res := range resources {
		for _, sub := range subresources {
			pairs = append(pairs, pair{res, sub})
		}
	}
	ops := []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}
	dims := []dimension{
		{len(groups), func(r indexedRule, i int) bool { return ruleHasGroup(r.Rule.APIGroups, groups[i]) },
			func(q *requestClass, i int) { q.Group = groups[i] }},
		{len(pairs), func(r indexedRule, i int) bool { return ruleHasResource(r.Rule.Resources, pairs[i].res, pairs[i].sub) },
			func(q *requestClass, i int) { q.Resource, q.Subresource = pairs[i].res, pairs[i].sub }},
		{len(versions), func(r indexedRule, i int) bool { return classVersionMatches(r.Rule, r.Equivalent, versions[i], nil) },
			func(q *requestClass, i int) { q.Version = versions[i] }},
		{len(ops), func(r indexedRule, i int) bool { return classOperationMatches(r.Rule, ops[i]) },
			func(q *requestClass, i int) { q.Operation = ops[i] }},
		{2, func(r indexedRule, i int) bool { return classScopeMatches(r.Rule, requestClass{Namespaced: i == 0}) },
			func(q *requestClass, i int) { q.Namespaced = i == 0 }},
	}

	// Which rules each value of each dimension admits, computed once.
	masks := make([][]bitset, len(dims))
	for l, d := range dims {
		masks[l] = make([]bitset, d.n)
		for i := 0; i < d.n; i++ {
			m := newBitset(len(rules))
			for j, r := range rules {
				if d.match(r, i) {
					m.set(j)
				}
			}
			masks[l][i] = m
		}
	}

	var walk func(level int, q requestClass, live bitset)
	walk = func(level int, q requestClass, live bitset) {
		if level == len(dims) {
			keep(q, live)
			return
		}
		branches := map[string]bool{}
		for i := 0; i < dims[level].n; i++ {
			next := live.and(masks[level][i])
			// One branch per distinct set: values leading to the same set
			// of rules are interchangeable from here on.
			if !next.intersects(anchors) || branches[next.key()] {
				continue
			}
			branches[next.key()] = true
			nq := q
			dims[level].apply(&nq, i)
			walk(level+1, nq, next)
		}
	}
	all := newBitset(len(rules))
	for i, r := range rules {
		for _, g := range r.Rule.APIGroups {
			if g == "*" || !IsBuiltinGroup(g) {
				all.set(i)
			}
		}
	}
	walk(0, requestClass{}, all)
}

// bitset is a fixed-size set of rule indexes.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int) { b[i/64] |= 1 << (i % 64) }

func (b bitset) and(o bitset) bitset {
	out := make(bitset, len(b))
	for i := range b {
		out[i] = b[i] & o[i]
	}
	return out
}

func (b bitset) intersects(o bitset) bool {
	for i := range b {
		if b[i]&o[i] != 0 {
			return true
		}
	}
	return false
}

func (b bitset) each(fn func(int)) {
	for w, word := range b {
		for bit := 0; word != 0; bit++ {
			if word&1 != 0 {
				fn(w*64 + bit)
			}
			word >>= 1
		}
	}
}

// key is a map key for the set's contents.
func (b bitset) key() string {
	buf := make([]byte, 0, 8*len(b))
	for _, w := range b {
		buf = binary.LittleEndian.AppendUint64(buf, w)
	}
	return string(buf)
}
