package rules

import (
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

func TestRequestShapes(t *testing.T) {
	rule := func(ops []admissionv1.OperationType, groups []string, scope admissionv1.ScopeType, resources ...string) admissionv1.RuleWithOperations {
		r := admissionv1.RuleWithOperations{Operations: ops, Rule: admissionv1.Rule{APIGroups: groups, APIVersions: []string{"*"}, Resources: resources}}
		if scope != "" {
			r.Scope = &scope
		}
		return r
	}
	all := []admissionv1.OperationType{admissionv1.OperationAll}
	create := []admissionv1.OperationType{admissionv1.Create}
	core := []string{""}
	for _, tc := range []struct {
		name  string
		rules []admissionv1.RuleWithOperations
		want  string
	}{
		{"no rules", nil, "[]"},
		{"pods: no CONNECT without a subresource", []admissionv1.RuleWithOperations{rule(all, core, "", "pods")},
			"[{CREATE false true} {UPDATE false true} {DELETE false true}]"},
		{"pods/exec is CONNECT only", []admissionv1.RuleWithOperations{rule(all, core, "", "pods/exec")},
			"[{CONNECT true true}]"},
		{"CONNECT on pods matches nothing", []admissionv1.RuleWithOperations{rule([]admissionv1.OperationType{admissionv1.Connect}, core, "", "pods")},
			"[]"},
		{"namespaces carry their own name", []admissionv1.RuleWithOperations{rule(create, core, "", "namespaces")},
			"[{CREATE false true}]"},
		{"cluster-scoped built-ins", []admissionv1.RuleWithOperations{rule(create, []string{"rbac.authorization.k8s.io"}, "", "clusterroles")},
			"[{CREATE false false}]"},
		{"custom resources take the rule's scope", []admissionv1.RuleWithOperations{rule(create, []string{"example.com"}, admissionv1.ClusterScope, "widgets")},
			"[{CREATE false false}]"},
		{"custom resources of any scope", []admissionv1.RuleWithOperations{rule(create, []string{"example.com"}, "", "widgets")},
			"[{CREATE false true} {CREATE false false}]"},
	} {
		got := fmt.Sprint(requestShapes(tc.rules))
		if got != tc.want {
			t.Errorf("%s: requestShapes = %s, want %s", tc.name, got, tc.want)
		}
	}
}
