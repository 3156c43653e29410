package rules

import (
	"reflect"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

func TestLookupBuiltin(t *testing.T) {
	cases := []struct {
		group, res, sub string
		namespaced      bool
		meta            bool
		kind            string
	}{
		{"", "pods", "", true, true, "Pod"},
		{"", "pods", "exec", true, false, "PodExecOptions"},
		{"", "nodes", "proxy", false, false, "NodeProxyOptions"},
		{"", "namespaces", "", false, true, "Namespace"},
		{"apps", "deployments", "scale", true, true, "Scale"},
		{"certificates.k8s.io", "certificatesigningrequests", "approval", false, true, "CertificateSigningRequest"},
		{"policy", "podsecuritypolicies", "", false, true, "PodSecurityPolicy"},
	}
	for _, c := range cases {
		r, ok := LookupBuiltin(c.group, c.res, c.sub)
		if !ok {
			t.Errorf("%s/%s/%s not found", c.group, c.res, c.sub)
			continue
		}
		if r.Namespaced != c.namespaced || r.HasObjectMeta() != c.meta || r.Kind != c.kind {
			t.Errorf("%s: got namespaced=%v meta=%v kind=%s", r, r.Namespaced, r.HasObjectMeta(), r.Kind)
		}
	}
	if _, ok := LookupBuiltin("", "pods", "log"); ok {
		t.Error("pods/log is read-only and must not be in the table")
	}
	if _, ok := LookupBuiltin("example.com", "widgets", ""); ok {
		t.Error("custom resource found in built-in table")
	}
}

func TestBuiltinResourceString(t *testing.T) {
	r, _ := LookupBuiltin("apps", "deployments", "scale")
	if got := r.String(); got != "deployments.apps/scale" {
		t.Errorf("String() = %q", got)
	}
}

func TestIsBuiltinGroup(t *testing.T) {
	for g, want := range map[string]bool{"": true, "apps": true, "extensions": true, "example.com": false, "metrics.k8s.io": false} {
		if IsBuiltinGroup(g) != want {
			t.Errorf("IsBuiltinGroup(%q) = %v", g, !want)
		}
	}
}

func names(rs []BuiltinResource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

func rule(groups, resources []string, ops []admissionv1.OperationType, scope admissionv1.ScopeType) admissionv1.RuleWithOperations {
	r := admissionv1.RuleWithOperations{Operations: ops, Rule: admissionv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources}}
	if scope != "" {
		r.Scope = &scope
	}
	return r
}

func TestExpandRule(t *testing.T) {
	all := []admissionv1.OperationType{admissionv1.OperationAll}
	connect := []admissionv1.OperationType{admissionv1.Connect}
	create := []admissionv1.OperationType{admissionv1.Create}

	got := ExpandRule(rule([]string{""}, []string{"pods/*"}, connect, ""))
	if want := []string{"pods/attach", "pods/exec", "pods/portforward", "pods/proxy"}; !slices.Equal(names(got.Builtin), want) || got.Others {
		t.Errorf("pods/* CONNECT = %v others=%v, want %v", names(got.Builtin), got.Others, want)
	}

	// A plain "*" matches only requests without a subresource.
	got = ExpandRule(rule([]string{""}, []string{"*"}, create, admissionv1.ClusterScope))
	for _, r := range got.Builtin {
		if r.Subresource != "" || (r.Namespaced && !r.IsNamespace()) {
			t.Errorf("core * CREATE Cluster matched %s", r)
		}
	}
	if !slices.Contains(names(got.Builtin), "namespaces") || !slices.Contains(names(got.Builtin), "nodes") {
		t.Errorf("core * Cluster misses namespaces or nodes: %v", names(got.Builtin))
	}

	// Scope Namespaced never matches namespaces.
	got = ExpandRule(rule([]string{""}, []string{"namespaces", "pods"}, all, admissionv1.NamespacedScope))
	if want := []string{"pods"}; !slices.Equal(names(got.Builtin), want) {
		t.Errorf("Namespaced = %v, want %v", names(got.Builtin), want)
	}

	// "*/scale" and custom groups.
	got = ExpandRule(rule([]string{"apps", "example.com"}, []string{"*/scale"}, all, ""))
	if want := []string{"deployments.apps/scale", "replicasets.apps/scale", "statefulsets.apps/scale"}; !slices.Equal(names(got.Builtin), want) || !got.Others {
		t.Errorf("*/scale = %v others=%v", names(got.Builtin), got.Others)
	}
	if got.Builtin[0].Operations[0] != admissionv1.Update || len(got.Builtin[0].Operations) != 1 {
		t.Errorf("scale operations narrowed wrongly: %v", got.Builtin[0].Operations)
	}

	// Operations the resource never receives match nothing.
	got = ExpandRule(rule([]string{""}, []string{"pods"}, connect, ""))
	if len(got.Builtin) != 0 {
		t.Errorf("CONNECT on pods matched %v", names(got.Builtin))
	}
}

// TestExpandRuleByGroupIsFullScan checks ExpandRule, which looks only at
// the groups a rule names, against filtering every built-in resource.
func TestExpandRuleByGroupIsFullScan(t *testing.T) {
	var groups []string
	for g := range builtinGroupsForTest() {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	groupSets := [][]string{{"*"}, {""}, {"apps", ""}, {"", "apps", ""}, {"example.com"}, {"batch", "*"}, groups}
	for _, g := range groups {
		groupSets = append(groupSets, []string{g}, []string{g, "apps"})
	}
	resourceSets := [][]string{{"*"}, {"*/*"}, {"pods"}, {"pods/*"}, {"*/status"}, {"deployments", "pods/exec"}}
	for _, gs := range groupSets {
		for _, rs := range resourceSets {
			for _, scope := range []admissionv1.ScopeType{admissionv1.AllScopes, admissionv1.NamespacedScope, admissionv1.ClusterScope} {
				r := admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Delete},
					Rule:       admissionv1.Rule{APIGroups: gs, APIVersions: []string{"*"}, Resources: rs, Scope: &scope},
				}
				got := ExpandRule(r)
				var want []BuiltinResource
				for _, res := range BuiltinResources() {
					if !ruleHasGroup(gs, res.Group) || !ruleHasResource(rs, res.Resource, res.Subresource) || !scopeAdmits(scope, res) {
						continue
					}
					if ops := ruleOperationsOn(r.Operations, res.Operations); len(ops) > 0 {
						res.Operations = ops
						want = append(want, res)
					}
				}
				if !reflect.DeepEqual(got.Builtin, want) {
					t.Errorf("ExpandRule(groups %q, resources %q, scope %s): %d resources, want %d", gs, rs, scope, len(got.Builtin), len(want))
				}
			}
		}
	}
}

func builtinGroupsForTest() map[string]bool {
	loadBuiltins()
	return builtinGroups
}

// TestExpandRuleSharedResultsStayIntact appends to what ExpandRule returns,
// as callers merging operations do, and asks again: the remembered result
// must not have changed.
func TestExpandRuleSharedResultsStayIntact(t *testing.T) {
	r := admissionv1.RuleWithOperations{
		Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods", "configmaps"}},
	}
	first := ExpandRule(r)
	if len(first.Builtin) == 0 {
		t.Fatal("no resources for pods and configmaps")
	}
	want := slices.Clone(first.Builtin)
	for i := range want {
		want[i].Operations = slices.Clone(want[i].Operations)
	}
	for _, res := range first.Builtin {
		_ = append(res.Operations, admissionv1.Delete)
	}
	_ = append(first.Builtin, BuiltinResource{Resource: "extra"})
	if again := ExpandRule(r); !reflect.DeepEqual(again.Builtin, want) {
		t.Errorf("ExpandRule changed after callers appended to its result:\n%v\nwant\n%v", again.Builtin, want)
	}
	// A rule spelled differently but with the same groups, resources,
	// operations and scope shares the result; one that differs does not.
	other := r
	other.Resources = []string{"pods"}
	if got := ExpandRule(other); len(got.Builtin) >= len(want) {
		t.Errorf("ExpandRule(pods) = %d resources, want fewer than pods+configmaps' %d", len(got.Builtin), len(want))
	}
}
