package apiservermatch

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	wl "github.com/webhooklint/webhooklint/rules"
)

// randCondition builds a random matchCondition from the request fields
// webhooklint evaluates and parts it cannot decide (object fields).
func randCondition(r *rand.Rand, depth int) string {
	if depth == 0 || r.Intn(3) == 0 {
		switch r.Intn(8) {
		case 0:
			return fmt.Sprintf("request.namespace %s %q", pick(r, []string{"==", "!="}), pick(r, []string{"kube-system", "team", ""}))
		case 1:
			return fmt.Sprintf("request.namespace in [%q, %q]", pick(r, []string{"kube-system", "team"}), pick(r, []string{"kube-node-lease", "other"}))
		case 2:
			return fmt.Sprintf("request.operation == %q", pick(r, []string{"CREATE", "UPDATE", "DELETE"}))
		case 3:
			return fmt.Sprintf("request.resource.resource != %q", pick(r, []string{"pods", "leases"}))
		case 4:
			return fmt.Sprintf("%q in request.userInfo.groups", pick(r, []string{"system:nodes", "system:masters"}))
		case 5:
			return fmt.Sprintf("request.userInfo.username.startsWith(%q)", pick(r, []string{"system:node:", "system:serviceaccount:"}))
		case 6:
			return "has(object.metadata.labels) && 'app' in object.metadata.labels"
		default:
			return "request.subResource == ''"
		}
	}
	switch r.Intn(3) {
	case 0:
		return "!(" + randCondition(r, depth-1) + ")"
	case 1:
		return "(" + randCondition(r, depth-1) + ") && (" + randCondition(r, depth-1) + ")"
	default:
		return "(" + randCondition(r, depth-1) + ") || (" + randCondition(r, depth-1) + ")"
	}
}

// TestMatchConditionsAgainstAPIServer checks that whenever webhooklint
// decides a matchCondition from the request alone, the API server's
// compiled matcher gives the same answer.
func TestMatchConditionsAgainstAPIServer(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	compiler := cel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	decided := 0
	for i := 0; i < 3000; i++ {
		conds := []admissionv1.MatchCondition{{Name: "a", Expression: randCondition(r, 3)}}
		if r.Intn(2) == 0 {
			conds = append(conds, admissionv1.MatchCondition{Name: "b", Expression: randCondition(r, 2)})
		}
		ns := pick(r, []string{"kube-system", "team", "kube-node-lease"})
		res := pick(r, []string{"pods", "leases"})
		op := pick(r, []admission.Operation{admission.Create, admission.Update})
		groups := pick(r, [][]string{{"system:nodes", "system:authenticated"}, {"system:authenticated"}})
		userName := pick(r, []string{"system:node:n1", "system:serviceaccount:kube-system:x"})
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: ns, Labels: map[string]string{"app": "y"}}}
		attr := admission.NewAttributesRecord(pod, nil, schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, ns, "x",
			schema.GroupVersionResource{Version: "v1", Resource: res}, "", op, &metav1.CreateOptions{}, false,
			&user.DefaultInfo{Name: userName, Groups: groups})
		hook := admissionv1.ValidatingWebhook{Name: "w.example.com", MatchConditions: conds}
		m := webhook.NewValidatingWebhookAccessor("u", "c", &hook).GetCompiledMatcher(compiler)
		server := m.Match(context.Background(), &admission.VersionedAttributes{Attributes: attr, VersionedKind: attr.GetKind(), VersionedObject: admission.NewLazyObject(pod)}, nil, nil)
		if server.Error != nil {
			continue // the evaluation failed: not a case webhooklint claims to decide
		}

		w := wl.Webhook{MatchConditions: conds, Rules: []admissionv1.RuleWithOperations{{
			Operations: []admissionv1.OperationType{"*"},
			Rule:       admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}
		req := &wl.Request{Operation: admissionv1.OperationType(op), Version: "v1", Resource: res, Namespace: ns,
			NamespaceLabels: wl.KnownLabels(nil), Object: wl.KnownLabels(pod.Labels),
			UserGroups: groups}
		if r.Intn(2) == 0 {
			req.UserName = userName
		}
		sim := w.Simulate(req)
		if sim.Outcome == wl.MaybeCalled {
			continue
		}
		decided++
		if got := sim.Outcome == wl.Called; got != server.Matches {
			exprs := make([]string, len(conds))
			for i, c := range conds {
				exprs[i] = c.Expression
			}
			t.Fatalf("%s on %s in %q by %s %v: server matches=%v, webhooklint %v\n%s",
				op, res, ns, req.UserName, groups, server.Matches, sim.Outcome, strings.Join(exprs, "\n"))
		}
	}
	if decided < 500 {
		t.Errorf("only %d cases decided: the test exercises too little", decided)
	}
	t.Logf("%d cases decided by webhooklint, all as the API server", decided)
}
