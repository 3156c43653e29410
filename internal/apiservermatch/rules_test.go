package apiservermatch

import (
	"math/rand"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"

	wl "github.com/webhooklint/webhooklint/rules"
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

func subset[T any](r *rand.Rand, xs []T) []T {
	var out []T
	for _, x := range xs {
		if r.Intn(3) == 0 {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		out = append(out, pick(r, xs))
	}
	return out
}

// TestRuleMatchingAgainstAPIServer compares rule matching (scope,
// operations, groups, versions, resources with every wildcard form) with
// predicates/rules.Matcher on random rules and requests. matchPolicy is
// Exact: equivalent versions need the server's discovery data.
func TestRuleMatchingAgainstAPIServer(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	groups := []string{"", "apps", "*", "coordination.k8s.io"}
	versions := []string{"v1", "v1beta1", "*"}
	resources := []string{"*", "pods", "pods/*", "*/status", "pods/status", "*/*", "namespaces", "namespaces/finalize", "leases", "nodes", "nodes/status", "deployments/scale", "*/scale"}
	ops := []admissionv1.OperationType{"*", "CREATE", "UPDATE", "DELETE", "CONNECT"}
	scopes := []string{"", "*", "Namespaced", "Cluster"}
	reqRes := []struct{ g, res, sub string }{{"", "pods", ""}, {"", "pods", "status"}, {"", "pods", "exec"}, {"", "namespaces", ""}, {"", "namespaces", "finalize"}, {"", "nodes", ""}, {"", "nodes", "status"}, {"apps", "deployments", "scale"}, {"apps", "deployments", ""}, {"coordination.k8s.io", "leases", ""}}
	n, matched := 0, 0
	for i := 0; i < 200000; i++ {
		rule := admissionv1.RuleWithOperations{Operations: subset(r, ops), Rule: admissionv1.Rule{
			APIGroups: subset(r, groups), APIVersions: subset(r, versions), Resources: subset(r, resources)}}
		if s := pick(r, scopes); s != "" {
			sc := admissionv1.ScopeType(s)
			rule.Scope = &sc
		}
		rr := pick(r, reqRes)
		ver := pick(r, []string{"v1", "v1beta1"})
		op := pick(r, []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect})
		// Cluster-scoped and namespaced requests alike, so scope rules see
		// both; for namespaces the server sets the namespace's own name.
		ns := pick(r, []string{"", "team-a"})
		attr := admission.NewAttributesRecord(nil, nil, schema.GroupVersionKind{}, ns, "x",
			schema.GroupVersionResource{Group: rr.g, Version: ver, Resource: rr.res}, rr.sub, op, &metav1.CreateOptions{}, false, nil)
		want := (&rules.Matcher{Rule: rule, Attr: attr}).Matches()
		exact := admissionv1.Exact
		w := wl.Webhook{Rules: []admissionv1.RuleWithOperations{rule}, MatchPolicy: &exact}
		req := &wl.Request{Operation: admissionv1.OperationType(op), Group: rr.g, Version: ver, Resource: rr.res, Subresource: rr.sub, Namespace: ns,
			NamespaceLabels: wl.KnownLabels(nil), Object: wl.KnownLabels(nil)}
		got := w.Simulate(req).Outcome == wl.Called
		n++
		if want {
			matched++
		}
		if got != want {
			t.Fatalf("rule %+v scope %v, request %s/%s %s/%s %s ns=%q: server %v, webhooklint %v", rule.Rule, rule.Scope, rr.g, ver, rr.res, rr.sub, op, ns, want, got)
		}
	}
	t.Logf("%d cases, %d matched", n, matched)
}
