package manifest

import (
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/webhooklint/webhooklint/rules"
)

// RBAC is read for one question: which ServiceAccounts may write webhook
// configurations or CRDs (a backend that writes its own caBundle). Only
// the rules that can apply to admissionregistration.k8s.io or
// apiextensions.k8s.io are kept, and what a ClusterRole aggregates (the
// rules of Knative's controller are all aggregated).

// readRole summarizes a ClusterRole or Role.
func readRole(src *source, obj *yaml.Node, d *Document, b *budget) *rules.Role {
	var r rbacv1.ClusterRole // Role has the same rules field
	if !decodeLenient(src, only(obj, "rules", "aggregationRule"), &r, b) {
		return nil
	}
	out := &rules.Role{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
	for _, pr := range r.Rules {
		if slices.Contains(pr.APIGroups, rules.GroupName) || slices.Contains(pr.APIGroups, rules.CRDGroupName) || slices.Contains(pr.APIGroups, "*") {
			out.Rules = append(out.Rules, pr)
		}
	}
	if d.Kind == "ClusterRole" {
		out.Labels = readLabels(obj)
		if r.AggregationRule != nil {
			out.Aggregates = r.AggregationRule.ClusterRoleSelectors
		}
	}
	return out
}

// readRoleBinding summarizes a ClusterRoleBinding or RoleBinding.
func readRoleBinding(src *source, obj *yaml.Node, d *Document, b *budget) *rules.RoleBinding {
	var rb rbacv1.ClusterRoleBinding // RoleBinding has the same fields
	if !decodeLenient(src, only(obj, "roleRef", "subjects"), &rb, b) {
		return nil
	}
	return &rules.RoleBinding{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, RoleRef: rb.RoleRef, Subjects: rb.Subjects}
}

// isHelmTestHook reports a helm.sh/hook annotation that makes the object a
// test (test, or the older test-success and test-failure).
func isHelmTestHook(hooks string) bool {
	for h := range strings.SplitSeq(hooks, ",") {
		if h = strings.TrimSpace(h); h == "test" || h == "test-success" || h == "test-failure" {
			return true
		}
	}
	return false
}
