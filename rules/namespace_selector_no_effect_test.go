package rules

import (
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

func TestClusterScopedOnly(t *testing.T) {
	ops := []admissionv1.OperationType{admissionv1.OperationAll}
	cases := []struct {
		name  string
		rules []admissionv1.RuleWithOperations
		want  []string
		ok    bool
	}{
		{"nodes", []admissionv1.RuleWithOperations{rule([]string{""}, []string{"nodes"}, ops, "")}, []string{"nodes"}, true},
		{"nodes and pods", []admissionv1.RuleWithOperations{rule([]string{""}, []string{"nodes", "pods"}, ops, "")}, nil, false},
		{"namespaces", []admissionv1.RuleWithOperations{rule([]string{""}, []string{"namespaces/status"}, ops, "")}, nil, false},
		{"core * Cluster", []admissionv1.RuleWithOperations{rule([]string{""}, []string{"*"}, ops, admissionv1.ClusterScope)}, nil, false},
		{"nothing matched", []admissionv1.RuleWithOperations{rule([]string{""}, []string{"nodez"}, ops, "")}, nil, false},
		{"pv subresource", []admissionv1.RuleWithOperations{rule([]string{""}, []string{"persistentvolumes/status"}, ops, "")}, []string{"persistentvolumes"}, true},
		{"custom namespaced scope", []admissionv1.RuleWithOperations{rule([]string{"example.com"}, []string{"*"}, ops, admissionv1.NamespacedScope)}, nil, false},
	}
	for _, c := range cases {
		got, ok := clusterScopedOnly(c.rules)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v %v, want %v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
