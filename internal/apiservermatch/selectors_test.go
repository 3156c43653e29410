package apiservermatch

import (
	"math/rand"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/namespace"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/object"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	wl "github.com/webhooklint/webhooklint/rules"
)

func randLabels(r *rand.Rand) map[string]string {
	m := map[string]string{}
	for _, k := range []string{"a", "b", "c"} {
		if r.Intn(2) == 0 {
			m[k] = pick(r, []string{"x", "y"})
		}
	}
	return m
}

func randSelector(r *rand.Rand) *metav1.LabelSelector {
	if r.Intn(5) == 0 {
		return nil
	}
	s := &metav1.LabelSelector{}
	if r.Intn(2) == 0 {
		s.MatchLabels = map[string]string{pick(r, []string{"a", "b"}): pick(r, []string{"x", "y"})}
	}
	for i := r.Intn(3); i > 0; i-- {
		op := pick(r, []metav1.LabelSelectorOperator{"In", "NotIn", "Exists", "DoesNotExist"})
		e := metav1.LabelSelectorRequirement{Key: pick(r, []string{"a", "b", "c"}), Operator: op}
		if op == "In" || op == "NotIn" {
			e.Values = subset(r, []string{"x", "y"})
		}
		s.MatchExpressions = append(s.MatchExpressions, e)
	}
	return s
}

// TestSelectorsAgainstAPIServer compares namespaceSelector and
// objectSelector evaluation (cluster-scoped requests, namespaces objects,
// old and new objects) with predicates/namespace and predicates/object on
// random selectors and fully known labels.
func TestSelectorsAgainstAPIServer(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 20000; i++ {
		nsLabels, objLabels, oldLabels := randLabels(r), randLabels(r), randLabels(r)
		nsSel, objSel := randSelector(r), randSelector(r)
		res := pick(r, []string{"pods", "namespaces", "nodes"})
		ns := "team"
		if res == "nodes" {
			ns = ""
		}
		op := pick(r, []admission.Operation{admission.Create, admission.Update, admission.Delete})
		var obj, old *corev1.Pod
		if op != admission.Delete {
			obj = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: objLabels}}
		}
		if op != admission.Create {
			old = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: oldLabels}}
		}
		var objRO, oldRO = toObj(obj), toObj(old)
		attr := admission.NewAttributesRecord(objRO, oldRO, schema.GroupVersionKind{}, ns, "x",
			schema.GroupVersionResource{Version: "v1", Resource: res}, "", op, &metav1.CreateOptions{}, false, nil)
		if res == "namespaces" && op != admission.Delete {
			// The namespace object itself carries the labels the server uses.
			nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: objLabels}}
			var oldNs *corev1.Namespace
			if old != nil {
				oldNs = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: oldLabels}}
			}
			attr = admission.NewAttributesRecord(nsObj, toObjNs(oldNs), schema.GroupVersionKind{}, ns, ns,
				schema.GroupVersionResource{Version: "v1", Resource: res}, "", op, &metav1.CreateOptions{}, false, nil)
		}
		indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		_ = indexer.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: nsLabels}})
		nm := &namespace.Matcher{NamespaceLister: corelisters.NewNamespaceLister(indexer), Client: fake.NewSimpleClientset()}
		hook := admissionv1.ValidatingWebhook{Name: "w", NamespaceSelector: nsSel, ObjectSelector: objSel}
		if hook.NamespaceSelector == nil {
			hook.NamespaceSelector = &metav1.LabelSelector{} // server default
		}
		if hook.ObjectSelector == nil {
			hook.ObjectSelector = &metav1.LabelSelector{}
		}
		acc := webhook.NewValidatingWebhookAccessor("u", "c", &hook)
		nsOK, err1 := nm.MatchNamespaceSelector(acc, attr)
		objOK, err2 := (&object.Matcher{}).MatchObjectSelector(acc, attr)
		if err1 != nil || err2 != nil {
			t.Fatalf("server errors %v %v", err1, err2)
		}
		want := nsOK && objOK

		w := wl.Webhook{NamespaceSelector: nsSel, ObjectSelector: objSel,
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{"*"}, Rule: admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}
		req := &wl.Request{Operation: admissionv1.OperationType(op), Version: "v1", Resource: res, Namespace: ns,
			NamespaceLabels: wl.KnownLabels(nsLabels)}
		if obj != nil {
			req.Object = wl.KnownLabels(objLabels)
		}
		if old != nil {
			req.OldObject = wl.KnownLabels(oldLabels)
		}
		got := w.Simulate(req).Outcome == wl.Called
		if got != want {
			t.Fatalf("case %d: res=%s op=%s nsSel=%v objSel=%v ns=%v obj=%v old=%v: server %v (ns %v obj %v), webhooklint %v",
				i, res, op, nsSel, objSel, nsLabels, objLabels, oldLabels, want, nsOK, objOK, got)
		}
	}
}
