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
  admissionReviewVersions: [v1]
  clientConfig:
    service: {name: hooks, namespace: hooks-system}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
`)
	}
	tab := intern.New()
	a := ParseWith("a.yaml", text("a"), Options{Strings: tab})
	b := ParseWith("b.yaml", text("b"), Options{Strings: tab})
	for _, f := range []*File{a, b} {
		plain := ParseWith(f.Name, text(f.Name[:1]), Options{})
		if !reflect.DeepEqual(f.Docs[0].Config.Validating, plain.Docs[0].Config.Validating) {
			t.Errorf("%s: shared strings changed the object:\n%+v\n%+v", f.Name, f.Docs[0].Config.Validating, plain.Docs[0].Config.Validating)
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
}
