package rules

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestCreateRequestServedVersions: creating an object makes a request only
// where the table of built-in resources lists its kind at its version (a
// removed legacy version included); a CRD of the unit names its resource
// and scope.
func TestCreateRequestServedVersions(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.ClusterScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", Plural: "widgets"},
	}}
	in := &Inventory{CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}
	for _, c := range []struct {
		apiVersion, kind, resource string
		namespaced, ok             bool
	}{
		{"apps/v1", "Deployment", "deployments", true, true},
		{"apps/v1beta1", "Deployment", "", false, false},           // not served since 1.16
		{"extensions/v1beta1", "Ingress", "ingresses", true, true}, // legacy, kept in the table
		{"v1", "Namespace", "namespaces", false, true},
		{"v2", "Pod", "", false, false},
		{"example.com/v1", "Widget", "widgets", false, true},
		{"example.com/v1", "Gadget", "", false, false},
	} {
		req, ok := CreateRequest(in, &ObjectRef{APIVersion: c.apiVersion, Kind: c.kind, Name: "n", Namespace: "ns"})
		if ok != c.ok {
			t.Errorf("%s %s: ok %v, want %v", c.apiVersion, c.kind, ok, c.ok)
			continue
		}
		if ok && (req.Resource != c.resource || (req.Namespace != "") != c.namespaced) {
			t.Errorf("%s %s: %s in %q, want %s (namespaced %v)", c.apiVersion, c.kind, req.Resource, req.Namespace, c.resource, c.namespaced)
		}
	}
}
