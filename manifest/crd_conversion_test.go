package manifest

import (
	"strings"
	"testing"
)

func TestCRDConversionIsIndexedAtServerAndV1Paths(t *testing.T) {
	src := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    cert-manager.io/inject-ca-from: widgets/widgets-cert
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true}
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: widgets
          namespace: widgets
          targetPort: 9443
`
	f := Parse("crd.yaml", []byte(src))
	if len(f.Docs) != 1 || f.Docs[0].CRD == nil || f.Docs[0].Config != nil {
		t.Fatalf("want one CRD to lint, got %+v", f.Docs)
	}
	d := f.Docs[0]
	cases := []struct {
		path string
		line int
	}{
		{"spec.conversion.webhook.clientConfig.service.name", 18},
		// The internal type's path, as the server prints it, at the v1 field.
		{"spec.conversion.webhookClientConfig.service.name", 18},
		{"spec.conversion.webhookClientConfig.service.namespace", 19},
		// Missing from the webhook block: on the block's key.
		{"spec.conversion.conversionReviewVersions", 15},
		{"metadata.annotations[cert-manager.io/inject-ca-from]", 6},
	}
	for _, c := range cases {
		if got := d.Locate(c.path, false); got.Line != c.line {
			t.Errorf("Locate(%q) is on line %d, want %d", c.path, got.Line, c.line)
		}
	}
	// Strict decoding of spec.conversion, as the server's.
	var unknown []string
	for _, dg := range d.Diagnostics {
		if strings.HasPrefix(dg.Message, "unknown field") {
			unknown = append(unknown, dg.Path)
		}
	}
	if len(unknown) != 1 || unknown[0] != "spec.conversion.webhook.clientConfig.service.targetPort" {
		t.Errorf("unknown fields %q, want spec.conversion.webhook.clientConfig.service.targetPort once", unknown)
	}
	// The inventory keeps it too, with the rules' view of the same object.
	if inv := Inventory([]*File{f}); len(inv.CRDs) != 1 || inv.CRDs[0] != d.CRD {
		t.Errorf("inventory CRDs %v, want the document's", inv.CRDs)
	}
}

func TestCRDWithoutConversionIsContextOnly(t *testing.T) {
	src := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - {name: v1, served: true, storage: true}
`
	f := Parse("crd.yaml", []byte(src))
	if len(f.Docs) != 1 || f.Docs[0].CRD != nil || f.Docs[0].Positions != nil {
		t.Fatalf("a CRD without spec.conversion is not linted nor indexed: %+v", f.Docs[0])
	}
}

func TestCertificatesAreInTheInventory(t *testing.T) {
	src := `apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: serving-cert, namespace: widgets}
spec: {secretName: widgets-tls}
`
	inv := Inventory([]*File{Parse("cert.yaml", []byte(src))})
	if len(inv.Certificates) != 1 || inv.Certificates[0].Namespace != "widgets" || inv.Certificates[0].SecretName != "widgets-tls" {
		t.Errorf("certificates %+v", inv.Certificates)
	}
}
