package fuzzset

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// A mutation changes one webhook w of the configuration doc and says
// what it did. The first ones are what the fixable rules fix
// (timeout-range, side-effects-value, review-versions,
// review-versions-order, match-conditions, unserved-api-version,
// system-critical-scope); the rest are other mistakes next to them.
type mutation func(r *rng, doc, w *yaml.Node) string

var mutations = []mutation{
	timeout, sideEffects, reviewVersions, reviewVersions, duplicateConditions, toV1beta1, systemScope,
	duplicateEntries, other,
}

// mutate makes one mutation of a random webhook, and about every third
// document a second one.
func mutate(r *rng, doc *yaml.Node) []string {
	var labels []string
	for n := 1 + b2i(r.chance(3)); n > 0; n-- {
		ws := webhooks(doc)
		labels = append(labels, pick(r, mutations)(r, doc, pick(r, ws)))
	}
	return labels
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func timeout(r *rng, _, w *yaml.Node) string {
	// 0x2D is 45 written as YAML 1.1 reads hex, as the server does.
	v := pick(r, []string{"-1", "0", "31", "45", "60", "600", "1", "30", "0x2D"})
	set(w, "timeoutSeconds", num(v))
	return "timeoutSeconds " + v
}

func sideEffects(r *rng, _, w *yaml.Node) string {
	switch v := pick(r, []string{"Unknown", "Some", "", "NoneOnDryRun", "None"}); v {
	case "":
		del(w, "sideEffects")
		return "no sideEffects"
	default:
		set(w, "sideEffects", str(v))
		return "sideEffects " + v
	}
}

func reviewVersions(r *rng, _, w *yaml.Node) string {
	lists := [][]string{nil, {}, {"v2"}, {"v1", "v1"}, {"v1beta1", "v1"}, {"v1beta1", "v1", "v1beta1"},
		{"v1", "v1beta1", "v1"}, {"v1beta1"}, {"v1", "v2"}, {"v1beta1", "v2", "v1"}, {"v1beta1", "v1beta1", "v1"}}
	l := pick(r, lists)
	if l == nil {
		del(w, "admissionReviewVersions")
		return "no admissionReviewVersions"
	}
	set(w, "admissionReviewVersions", strs(l...))
	return "admissionReviewVersions [" + strings.Join(l, ", ") + "]"
}

func duplicateConditions(r *rng, _, w *yaml.Node) string {
	exprs := []string{"true", "request.operation != 'DELETE'", `object.metadata.name != "skip"`,
		"!('kube-system' == request.namespace)", "has(object.metadata.labels)"}
	l := get(w, "matchConditions")
	if l == nil || l.Kind != yaml.SequenceNode || len(l.Content) == 0 {
		name := pick(r, []string{"not-delete", "only-labeled", "a"})
		l = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		l.Content = append(l.Content, mapping("name", name, "expression", pick(r, exprs)))
		set(w, "matchConditions", l)
	}
	first := get(l.Content[0], "name")
	if first == nil {
		return "matchConditions without a name"
	}
	dup := mapping("name", first.Value, "expression", pick(r, exprs))
	if r.chance(2) {
		l.Content = append(l.Content, dup)
	} else {
		l.Content = append([]*yaml.Node{dup}, l.Content...)
	}
	if r.chance(3) {
		l.Content = append(l.Content, mapping("name", first.Value+"-2", "expression", "true"))
		return "matchCondition " + first.Value + " twice, and " + first.Value + "-2"
	}
	return "matchCondition " + first.Value + " twice"
}

// toV1beta1 writes the configuration as v1beta1, which the server no
// longer serves; about half drop what v1beta1 defaults.
func toV1beta1(r *rng, doc, _ *yaml.Node) string {
	api := get(root(doc), "apiVersion")
	api.Value = "admissionregistration.k8s.io/v1beta1"
	if r.chance(2) {
		for _, w := range webhooks(doc) {
			del(w, "sideEffects")
			del(w, "admissionReviewVersions")
		}
		return "v1beta1 with its defaults"
	}
	return "v1beta1"
}

// systemScope makes a webhook see requests in kube-system: no selectors
// or conditions, broad rules, failing closed.
func systemScope(r *rng, _, w *yaml.Node) string {
	del(w, "namespaceSelector")
	del(w, "objectSelector")
	del(w, "matchConditions")
	resources := pick(r, [][]string{{"*"}, {"pods"}, {"configmaps", "secrets"}, {"leases"}})
	group := ""
	switch resources[0] {
	case "leases":
		group = "coordination.k8s.io"
	case "*":
		group = "*"
	}
	set(w, "rules", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{mapping(
		"operations", strs("CREATE", "UPDATE"), "apiGroups", strs(group), "apiVersions", strs("*"),
		"resources", strs(resources...))}})
	if r.chance(2) {
		set(w, "failurePolicy", str("Fail"))
	} else {
		del(w, "failurePolicy")
	}
	return "kube-system in scope: " + strings.Join(resources, ", ")
}

// duplicateEntries writes an entry of a list of a webhook's rule twice.
func duplicateEntries(r *rng, _, w *yaml.Node) string {
	rs := get(w, "rules")
	if rs == nil || rs.Kind != yaml.SequenceNode || len(rs.Content) == 0 {
		return "no rules to duplicate in"
	}
	key := pick(r, []string{"operations", "apiGroups", "apiVersions", "resources"})
	l := get(rs.Content[0], key)
	if l == nil || l.Kind != yaml.SequenceNode || len(l.Content) == 0 {
		return "no rules[0]." + key + " to duplicate"
	}
	l.Content = append(l.Content, clone(pick(r, l.Content)))
	return "rules[0]." + key + " entry twice"
}

// other makes a mistake no fix is offered for.
func other(r *rng, doc, w *yaml.Node) string {
	switch r.intn(6) {
	case 0:
		set(w, "failurePolicy", str("Sometimes"))
		return "failurePolicy Sometimes"
	case 1:
		set(w, "matchPolicy", str("Fuzzy"))
		return "matchPolicy Fuzzy"
	case 2:
		get(w, "name").Value = "nodots"
		return "webhook name without a dot"
	case 3:
		l := get(root(doc), "webhooks")
		l.Content = append(l.Content, clone(w))
		return "webhook twice"
	case 4:
		set(w, "reinvocationPolicy", str(pick(r, []string{"Never", "IfNeeded", "Sometimes"})))
		return "reinvocationPolicy"
	default:
		set(w, "timeoutSeconds", str("10"))
		return "timeoutSeconds a string"
	}
}
