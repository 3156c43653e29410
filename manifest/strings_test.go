package manifest

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/webhooklint/webhooklint/internal/intern"
)

// Files parsed with one Options.Strings share their values, and decode to
// what they decode to without it.
func TestStringsSharedAcrossFiles(t *testing.T) {
	text := func(name string) []byte {
		return []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ` + name + `
  labels: {team: platform}
webhooks:
- name: ` + name + `.example.com
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 10
  admissionReviewVersions: [v1]
  clientConfig:
    service: {name: hooks, namespace: hooks-system}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
  matchConditions:
  - {name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced}
`)
	}
	tab := intern.New()
	a := ParseWith("a.yaml", text("a"), Options{Strings: tab})
	b := ParseWith("b.yaml", text("b"), Options{Strings: tab})
	for _, f := range []*File{a, b} {
		plain := ParseWith(f.Name, text(f.Name[:1]), Options{})
		if !reflect.DeepEqual(f.Docs[0].Config, plain.Docs[0].Config) {
			t.Errorf("%s: shared strings changed the object:\n%+v\n%+v", f.Name, f.Docs[0].Config, plain.Docs[0].Config)
		}
	}
	wa, wb := a.Docs[0].Config.Webhooks[0], b.Docs[0].Config.Webhooks[0]
	same := func(what, x, y string) {
		if x != y || unsafe.StringData(x) != unsafe.StringData(y) {
			t.Errorf("%s: %q and %q are not one string", what, x, y)
		}
	}
	same("failurePolicy", string(*wa.FailurePolicy), string(*wb.FailurePolicy))
	same("service namespace", wa.ClientConfig.Service.Namespace, wb.ClientConfig.Service.Namespace)
	same("selector value", wa.NamespaceSelector.MatchExpressions[0].Values[0], wb.NamespaceSelector.MatchExpressions[0].Values[0])
	for k := range a.Docs[0].Config.Meta.Labels {
		for l := range b.Docs[0].Config.Meta.Labels {
			same("label key", k, l)
		}
	}
	if wa.Name == wb.Name {
		t.Fatalf("names should differ: %q", wa.Name)
	}
	if unsafe.SliceData(wa.AdmissionReviewVersions) != unsafe.SliceData(wb.AdmissionReviewVersions) {
		t.Error("admissionReviewVersions: equal lists are not one list")
	}
	if unsafe.SliceData(wa.NamespaceSelector.MatchExpressions[0].Values) != unsafe.SliceData(wb.NamespaceSelector.MatchExpressions[0].Values) {
		t.Error("selector values: equal lists are not one list")
	}
	for what, lists := range map[string][2]unsafe.Pointer{
		"rules":            {unsafe.Pointer(unsafe.SliceData(wa.Rules)), unsafe.Pointer(unsafe.SliceData(wb.Rules))},
		"matchConditions":  {unsafe.Pointer(unsafe.SliceData(wa.MatchConditions)), unsafe.Pointer(unsafe.SliceData(wb.MatchConditions))},
		"matchExpressions": {unsafe.Pointer(unsafe.SliceData(wa.NamespaceSelector.MatchExpressions)), unsafe.Pointer(unsafe.SliceData(wb.NamespaceSelector.MatchExpressions))},
	} {
		if lists[0] != lists[1] {
			t.Errorf("%s: equal lists are not one list", what)
		}
	}
	if wa.FailurePolicy != wb.FailurePolicy || wa.SideEffects != wb.SideEffects || wa.TimeoutSeconds != wb.TimeoutSeconds {
		t.Error("failurePolicy, sideEffects, timeoutSeconds: equal values are not one pointer")
	}
	if wa.NamespaceSelector != wb.NamespaceSelector || wa.ClientConfig.Service != wb.ClientConfig.Service {
		t.Error("namespaceSelector, service: equal values are not one pointer")
	}
}

// Lists of rules are shared only when every field of every rule is equal.
func TestSharedRulesKeepTheirFields(t *testing.T) {
	tab := intern.New()
	doc := func(rules string) []byte {
		return []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n" +
			"webhooks:\n- name: x.example.com\n  rules: " + rules + "\n")
	}
	for _, rules := range []string{
		`[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced}]`,
		`[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Cluster}]`,
		`[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]`,
		`[{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods], scope: Namespaced}]`,
		`[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced}, {apiGroups: [apps], resources: [pods]}]`,
		`[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods], scope: Namespaced}]`,
	} {
		shared := ParseWith("x.yaml", doc(rules), Options{Strings: tab}).Docs[0].Config.Webhooks[0].Rules
		plain := ParseWith("x.yaml", doc(rules), Options{}).Docs[0].Config.Webhooks[0].Rules
		if !reflect.DeepEqual(shared, plain) {
			t.Errorf("%s: got %+v, want %+v", rules, shared, plain)
		}
	}
}

// Pointers are shared only between values of one type and one value, and
// a value of the wrong type is left unset, shared or not.
func TestSharedPointersKeepTheirValues(t *testing.T) {
	tab := intern.New()
	doc := func(failurePolicy, matchPolicy, timeout string) []byte {
		return []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n" +
			"webhooks:\n- name: x.example.com\n  failurePolicy: " + failurePolicy + "\n  matchPolicy: " + matchPolicy +
			"\n  timeoutSeconds: " + timeout + "\n")
	}
	first := ParseWith("a.yaml", doc("Exact", "Exact", "5"), Options{Strings: tab}).Docs[0].Config.Webhooks[0]
	if string(*first.FailurePolicy) != "Exact" || string(*first.MatchPolicy) != "Exact" || *first.TimeoutSeconds != 5 {
		t.Fatalf("decoded %q %q %d", *first.FailurePolicy, *first.MatchPolicy, *first.TimeoutSeconds)
	}
	if unsafe.Pointer(first.FailurePolicy) == unsafe.Pointer(first.MatchPolicy) {
		t.Error("a failurePolicy and a matchPolicy of the same text are one pointer")
	}
	other := ParseWith("b.yaml", doc("Ignore", "Equivalent", "6"), Options{Strings: tab}).Docs[0].Config.Webhooks[0]
	if string(*other.FailurePolicy) != "Ignore" || string(*other.MatchPolicy) != "Equivalent" || *other.TimeoutSeconds != 6 {
		t.Errorf("decoded %q %q %d after other values", *other.FailurePolicy, *other.MatchPolicy, *other.TimeoutSeconds)
	}
	wrong := ParseWith("c.yaml", doc("[Fail]", "Exact", "five"), Options{Strings: tab})
	if w := wrong.Docs[0].Config.Webhooks[0]; w.FailurePolicy != nil || w.TimeoutSeconds != nil {
		t.Errorf("values of the wrong type decoded to %v %v", w.FailurePolicy, w.TimeoutSeconds)
	}
	if len(wrong.Docs[0].Diagnostics) == 0 {
		t.Error("values of the wrong type were not reported")
	}
}

// Lists are shared only when every element is equal: a string holding the
// separator of another list's elements is not that list.
func TestSharedListsKeepTheirElements(t *testing.T) {
	tab := intern.New()
	doc := func(versions string) []byte {
		return []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: x}\n" +
			"webhooks:\n- name: x.example.com\n  admissionReviewVersions: " + versions + "\n")
	}
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{`["1:a", "b"]`, []string{"1:a", "b"}},
		{`["1:a1:b"]`, []string{"1:a1:b"}},
		{`[a, b]`, []string{"a", "b"}},
		{`["a\0b"]`, []string{"a\x00b"}},
		{`["a", "", "b"]`, []string{"a", "", "b"}},
		{`["a", "b"]`, []string{"a", "b"}},
		{`[ab]`, []string{"ab"}},
	} {
		f := ParseWith("x.yaml", doc(tc.yaml), Options{Strings: tab})
		if got := f.Docs[0].Config.Webhooks[0].AdmissionReviewVersions; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.yaml, got, tc.want)
		}
	}
}

// A field written twice (a merge key, then the field itself) is decoded
// into its own copy, never into a value the unit's other objects share.
func TestSharedValuesNotWrittenByMerges(t *testing.T) {
	text := []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: x}
webhooks:
- &base
  name: a.example.com
  failurePolicy: Fail
  clientConfig:
    service: {name: s, namespace: n}
  namespaceSelector: {matchLabels: {a: b}}
- <<: *base
  name: b.example.com
  failurePolicy: Ignore
  namespaceSelector: {matchExpressions: [{key: k, operator: Exists}]}
- <<: [*base, {failurePolicy: Ignore}]
  name: c.example.com
`)
	tab := intern.New()
	shared := ParseWith("x.yaml", text, Options{Strings: tab})
	plain := ParseWith("x.yaml", text, Options{})
	if !reflect.DeepEqual(shared.Docs[0].Config, plain.Docs[0].Config) {
		t.Errorf("shared values changed the object:\n%+v\n%+v", shared.Docs[0].Config.Webhooks, plain.Docs[0].Config.Webhooks)
	}
	if w := shared.Docs[0].Config.Webhooks[0]; string(*w.FailurePolicy) != "Fail" || w.NamespaceSelector.MatchExpressions != nil {
		t.Errorf("the first webhook was written by the next: %q, %+v", *w.FailurePolicy, w.NamespaceSelector)
	}
}
