package rules

import (
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPolicySimulator(t *testing.T) {
	named := func(group, resource string, names ...string) admissionv1.NamedRuleWithOperations {
		return admissionv1.NamedRuleWithOperations{ResourceNames: names, RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.OperationAll},
			Rule:       admissionv1.Rule{APIGroups: []string{group}, APIVersions: []string{"*"}, Resources: []string{resource}}}}
	}
	leases := &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{
		named("apps", "deployments"), named("coordination.k8s.io", "leases")}}
	notNodeLease := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-node-lease"}}}}
	nodeLease := &Request{Operation: admissionv1.Update, Group: "coordination.k8s.io", Version: "v1", Resource: "leases",
		Namespace: "kube-node-lease", NamespaceLabels: KnownLabels(map[string]string{LabelMetadataName: "kube-node-lease"}),
		Object: KnownLabels(nil), OldObject: KnownLabels(nil)}
	exact := admissionv1.Exact
	for _, tc := range []struct {
		name                 string
		constraints, binding *admissionv1.MatchResources
		conditions           []admissionv1.MatchCondition
		req                  *Request
		want                 Outcome
		rule                 int
	}{
		{"the policy's second rule", leases, nil, nil, nodeLease, Called, 1},
		{"a binding without resourceRules narrows by its selector",
			leases, &admissionv1.MatchResources{NamespaceSelector: notNodeLease}, nil, nodeLease, NotCalled, 1},
		{"a binding's resourceRules must match too",
			leases, &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{named("apps", "deployments")}},
			nil, nodeLease, NotCalled, 1},
		{"excludeResourceRules subtract",
			&admissionv1.MatchResources{ResourceRules: leases.ResourceRules,
				ExcludeResourceRules: []admissionv1.NamedRuleWithOperations{named("coordination.k8s.io", "*")}},
			nil, nil, nodeLease, NotCalled, 1},
		{"a named exclusion may exclude",
			&admissionv1.MatchResources{ResourceRules: leases.ResourceRules,
				ExcludeResourceRules: []admissionv1.NamedRuleWithOperations{named("coordination.k8s.io", "leases", "node-1")}},
			nil, nil, nodeLease, MaybeCalled, 1},
		{"a named rule may match",
			&admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{named("coordination.k8s.io", "leases", "node-1")}},
			nil, nil, nodeLease, MaybeCalled, 0},
		{"a named rule matches the named object",
			&admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{named("coordination.k8s.io", "leases", "node-1")}},
			nil, nil, named1(nodeLease, "node-1"), Called, 0},
		{"a named exclusion excludes the named object",
			&admissionv1.MatchResources{ResourceRules: leases.ResourceRules,
				ExcludeResourceRules: []admissionv1.NamedRuleWithOperations{named("coordination.k8s.io", "leases", "node-1")}},
			nil, nil, named1(nodeLease, "node-1"), NotCalled, 1},
		{"and only it",
			&admissionv1.MatchResources{ResourceRules: leases.ResourceRules,
				ExcludeResourceRules: []admissionv1.NamedRuleWithOperations{named("coordination.k8s.io", "leases", "node-1")}},
			nil, nil, named1(nodeLease, "node-2"), Called, 1},
		{"matchConditions on the namespace",
			leases, nil, []admissionv1.MatchCondition{{Name: "n", Expression: "request.namespace != 'kube-node-lease'"}},
			nodeLease, NotCalled, 1},
		{"no matchConstraints match nothing", nil, nil, nil, nodeLease, NotCalled, -1},
		{"matchPolicy Exact", &admissionv1.MatchResources{MatchPolicy: &exact,
			ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
				Operations: []admissionv1.OperationType{admissionv1.Create},
				Rule:       admissionv1.Rule{APIGroups: []string{"events.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"events"}}}}}},
			nil, nil, &Request{Operation: admissionv1.Create, Version: "v1", Resource: "events", Namespace: "ns"}, NotCalled, -1},
		{"matchPolicy defaults to Equivalent", &admissionv1.MatchResources{
			ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
				Operations: []admissionv1.OperationType{admissionv1.Create},
				Rule:       admissionv1.Rule{APIGroups: []string{"events.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"events"}}}}}},
			nil, nil, &Request{Operation: admissionv1.Create, Version: "v1", Resource: "events", Namespace: "ns"}, Called, 0},
		{"never the policy kinds", &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{named("*", "*")}},
			nil, nil, &Request{Operation: admissionv1.Create, Group: GroupName, Version: "v1", Resource: "validatingadmissionpolicies"}, NotCalled, -1},
	} {
		sim := NewPolicySimulator(tc.constraints, tc.binding, tc.conditions).Simulate(tc.req)
		if sim.Outcome != tc.want || (sim.Outcome != NotCalled && sim.Rule != tc.rule) {
			t.Errorf("%s: %v (rule %d), want %v (rule %d)", tc.name, sim.Outcome, sim.Rule, tc.want, tc.rule)
		}
	}
}

func named1(r *Request, name string) *Request {
	c := *r
	c.Name = name
	return &c
}
