package rules

import (
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func testRule(ops []admissionv1.OperationType, groups, versions, resources []string, scope admissionv1.ScopeType) admissionv1.RuleWithOperations {
	r := admissionv1.RuleWithOperations{Operations: ops, Rule: admissionv1.Rule{
		APIGroups: groups, APIVersions: versions, Resources: resources,
	}}
	if scope != "" {
		r.Scope = &scope
	}
	return r
}

var (
	opsAny    = []admissionv1.OperationType{admissionv1.OperationAll}
	opsCreate = []admissionv1.OperationType{admissionv1.Create}
	wildcard  = []string{"*"}
)

func podCreate(ns string, podLabels map[string]string) *Request {
	return &Request{
		Operation: admissionv1.Create, Version: "v1", Resource: "pods",
		Namespace: ns, NamespaceLabels: (&Inventory{}).NamespaceLabels(ns),
		Object: KnownLabels(podLabels),
	}
}

func TestRuleHasResourceFollowsServer(t *testing.T) {
	cases := []struct {
		entries       []string
		resource, sub string
		want          bool
	}{
		{[]string{"*"}, "pods", "", true},
		{[]string{"*"}, "pods", "exec", false}, // "*" never matches subresources
		{[]string{"pods/*"}, "pods", "", true}, // "x/*" includes x itself
		{[]string{"pods/*"}, "pods", "status", true},
		{[]string{"pods/*"}, "nodes", "status", false},
		{[]string{"*/status"}, "nodes", "status", true},
		{[]string{"*/status"}, "nodes", "", false},
		{[]string{"*/*"}, "leases", "", true},
		{[]string{"pods"}, "pods", "status", false},
		{[]string{"pods/status"}, "pods", "status", true},
	}
	for _, c := range cases {
		if got := ruleHasResource(c.entries, c.resource, c.sub); got != c.want {
			t.Errorf("ruleHasResource(%q, %q, %q) = %v, want %v", c.entries, c.resource, c.sub, got, c.want)
		}
	}
}

func TestScopeTreatsNamespacesAsClusterScoped(t *testing.T) {
	nsCreate := &Request{Operation: admissionv1.Create, Version: "v1", Resource: "namespaces", Namespace: "team-a",
		Object: KnownLabels(map[string]string{LabelMetadataName: "team-a"})}
	namespaced := Webhook{Rules: []admissionv1.RuleWithOperations{testRule(opsAny, []string{""}, wildcard, wildcard, admissionv1.NamespacedScope)}}
	cluster := Webhook{Rules: []admissionv1.RuleWithOperations{testRule(opsAny, []string{""}, wildcard, wildcard, admissionv1.ClusterScope)}}
	if got := namespaced.Simulate(nsCreate).Outcome; got != NotCalled {
		t.Errorf("Namespaced scope on a namespace object: %v, want not called", got)
	}
	if got := cluster.Simulate(nsCreate).Outcome; got != Called {
		t.Errorf("Cluster scope on a namespace object: %v, want called", got)
	}
	if got := cluster.Simulate(podCreate("a", nil)).Outcome; got != NotCalled {
		t.Errorf("Cluster scope on a pod: %v, want not called", got)
	}
}

func TestNamespaceSelectorIgnoredForClusterScoped(t *testing.T) {
	w := Webhook{
		Rules: []admissionv1.RuleWithOperations{testRule(opsAny, wildcard, wildcard, wildcard, "")},
		NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system"},
		}}},
	}
	node := &Request{Operation: admissionv1.Update, Version: "v1", Resource: "nodes", Object: KnownLabels(nil)}
	if got := w.Simulate(node).Outcome; got != Called {
		t.Errorf("node update: %v, want called (namespaceSelector cannot exclude cluster-scoped objects)", got)
	}
	if got := w.Simulate(podCreate("kube-system", nil)).Outcome; got != NotCalled {
		t.Errorf("pod in kube-system: %v, want not called", got)
	}
	if got := w.Simulate(podCreate("apps", nil)).Outcome; got != Called {
		t.Errorf("pod in apps: %v, want called", got)
	}
}

func TestUnknownNamespaceLabelsGiveMaybe(t *testing.T) {
	w := Webhook{
		Rules: []admissionv1.RuleWithOperations{testRule(opsCreate, []string{""}, wildcard, []string{"pods"}, "")},
		NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "control-plane", Operator: metav1.LabelSelectorOpDoesNotExist,
		}}},
	}
	sim := w.Simulate(podCreate("kube-system", nil))
	if !sim.OnlyUnknown(UnknownNamespaceSelector) {
		t.Fatalf("got %+v, want maybe because of the namespaceSelector", sim)
	}
	req := podCreate("kube-system", nil)
	req.NamespaceLabels = req.NamespaceLabels.Assume()
	if got := w.Simulate(req).Outcome; got != Called {
		t.Errorf("assuming only default labels: %v, want called", got)
	}
}

func TestObjectSelectorUsesOldOrNewObject(t *testing.T) {
	w := Webhook{
		Rules:          []admissionv1.RuleWithOperations{testRule(opsAny, []string{""}, wildcard, wildcard, "")},
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
	}
	upd := &Request{Operation: admissionv1.Update, Version: "v1", Resource: "configmaps", Namespace: "a",
		NamespaceLabels: KnownLabels(nil),
		Object:          KnownLabels(map[string]string{"app": "y"}),
		OldObject:       KnownLabels(map[string]string{"app": "x"})}
	if got := w.Simulate(upd).Outcome; got != Called {
		t.Errorf("update whose old object matches: %v, want called", got)
	}
	connect := &Request{Operation: admissionv1.Connect, Version: "v1", Resource: "pods", Subresource: "exec", Namespace: "a",
		NamespaceLabels: KnownLabels(nil)}
	w.Rules = []admissionv1.RuleWithOperations{testRule(opsAny, []string{""}, wildcard, []string{"pods/exec"}, "")}
	if got := w.Simulate(connect).Outcome; got != NotCalled {
		t.Errorf("CONNECT with objectSelector: %v, want not called (options objects carry no labels)", got)
	}
}

func TestEquivalentVersions(t *testing.T) {
	w := Webhook{Rules: []admissionv1.RuleWithOperations{testRule(opsAny, []string{"coordination.k8s.io"}, []string{"v1beta1"}, []string{"leases"}, "")}}
	req := &Request{Operation: admissionv1.Update, Group: "coordination.k8s.io", Version: "v1", Resource: "leases",
		Namespace: "kube-node-lease", NamespaceLabels: KnownLabels(nil), Object: KnownLabels(nil),
		EquivalentVersions: []string{"v1", "v1beta1"}}
	if got := w.Simulate(req); got.Outcome != Called || got.Rule != 0 {
		t.Errorf("Equivalent (default in v1): %+v, want called by rule 0", got)
	}
	exact := admissionv1.Exact
	w.MatchPolicy = &exact
	if got := w.Simulate(req).Outcome; got != NotCalled {
		t.Errorf("Exact: %v, want not called", got)
	}
}

func TestMatchConditionsPartialEvaluation(t *testing.T) {
	base := Webhook{Rules: []admissionv1.RuleWithOperations{testRule(opsAny, []string{""}, wildcard, wildcard, "")}}
	cases := []struct {
		expr string
		ns   string
		want Outcome
	}{
		{`request.namespace != "kyverno"`, "kyverno", NotCalled},
		{`request.namespace != "kyverno"`, "apps", Called},
		{`!(request.namespace in ["kube-system", "kyverno"])`, "kube-system", NotCalled},
		{`request.namespace != "kyverno" && object.metadata.name != "x"`, "kyverno", NotCalled},
		{`request.namespace != "kyverno" && object.metadata.name != "x"`, "apps", MaybeCalled},
		{`request.namespace == "kyverno" || has(object.spec)`, "kyverno", Called},
		{`!("system:nodes" in request.userInfo.groups)`, "apps", MaybeCalled},
		{`!request.namespace.startsWith("kube-")`, "kube-system", NotCalled},
		{`request.resource.resource != "pods"`, "apps", NotCalled},
		{`object.metadata.name == `, "apps", MaybeCalled}, // does not parse
	}
	for _, c := range cases {
		w := base
		w.MatchConditions = []admissionv1.MatchCondition{{Name: "c", Expression: c.expr}}
		got := w.Simulate(podCreate(c.ns, nil))
		if got.Outcome != c.want {
			t.Errorf("%s in %s: %v, want %v", c.expr, c.ns, got.Outcome, c.want)
		}
		if got.Outcome == MaybeCalled && !got.OnlyUnknown(UnknownMatchConditions) {
			t.Errorf("%s: unknowns %v, want only matchConditions", c.expr, got.Unknowns)
		}
	}
	w := base
	w.MatchConditions = []admissionv1.MatchCondition{{Name: "c", Expression: `!("system:nodes" in request.userInfo.groups)`}}
	req := podCreate("apps", nil)
	req.UserGroups = []string{"system:nodes", "system:authenticated"}
	if got := w.Simulate(req).Outcome; got != NotCalled {
		t.Errorf("kubelet request with a system:nodes exclusion: %v, want not called", got)
	}
}

func TestEquivalentVersionsFromTheResourcesTable(t *testing.T) {
	w := Webhook{Rules: []admissionv1.RuleWithOperations{
		testRule(opsAny, []string{"coordination.k8s.io"}, []string{"v1beta1"}, []string{"leases"}, ""),
	}}
	req := &Request{Operation: admissionv1.Update, Group: "coordination.k8s.io", Version: "v1", Resource: "leases",
		Namespace: "kube-node-lease", NamespaceLabels: KnownLabels(nil), Object: KnownLabels(nil)}
	// Leases are served as v1 only: a rule naming v1beta1 matches nothing.
	if got := w.Simulate(req).Outcome; got != NotCalled {
		t.Errorf("v1beta1 leases rule on a v1 lease: %v, want not called", got)
	}
	w.Rules[0].APIVersions = []string{"v1", "v1beta1"}
	if got := w.Simulate(req).Outcome; got != Called {
		t.Errorf("rule naming v1 too: %v, want called", got)
	}
}

func TestInventoryNamespaceLabels(t *testing.T) {
	in := &Inventory{Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"team": "x"}}}}}
	got := in.NamespaceLabels("a")
	if got.Partial || got.Set["team"] != "x" || got.Set[LabelMetadataName] != "a" {
		t.Errorf("namespace in the input: %+v", got)
	}
	got = in.NamespaceLabels("b")
	if !got.Partial || len(got.Set) != 1 || got.Set[LabelMetadataName] != "b" {
		t.Errorf("namespace not in the input: %+v", got)
	}
}
