package source_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/fix"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// v1beta1CRD is an archived install manifest's CRD, removed in 1.22.
func v1beta1CRD(name, before, metadata string) string {
	return before + `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: ` + name + `.example.com
` + metadata + `spec:
  group: example.com
  names: {kind: ` + name + `, plural: ` + name + `}
  scope: Namespaced
  version: v1
`
}

// The v1beta1 finding on many CRDs of one file is one finding at the
// first, counting the others and pointing at them; an object's own
// suppression (a comment above it, the annotation) leaves it out of the
// count; CRDs of another file are that
// file's finding.
func TestUnservedCRDsOncePerFile(t *testing.T) {
	dir := t.TempDir()
	install := strings.Join([]string{
		v1beta1CRD("as", "", ""),
		v1beta1CRD("bs", "", ""),
		v1beta1CRD("cs", "# webhooklint:ignore unserved-api-version -- kept for the 1.18 test\n", ""),
		v1beta1CRD("ds", "", "  annotations:\n    webhooklint.io/ignore: 'unserved-api-version: kept for the 1.18 test'\n"),
		v1beta1CRD("fs", "", ""),
	}, "---\n")
	if err := os.WriteFile(filepath.Join(dir, "install.yaml"), []byte(install), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "other.yaml"), []byte(v1beta1CRD("es", "", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, []string{dir}, source.Options{})
	got := find(res.Diagnostics, rules.UnservedAPIVersionRule, "install.yaml")
	if len(got) != 1 {
		t.Fatalf("want one finding in install.yaml; got%s", dump(res.Diagnostics))
	}
	d := got[0]
	if d.Line != 1 || d.Object.Name != "as.example.com" ||
		d.Message != "3 CustomResourceDefinitions in this file: apiextensions.k8s.io/v1beta1 was removed in 1.22; use apiextensions.k8s.io/v1" {
		t.Errorf("want the count at the first CRD; got%s", dump(got))
	}
	var names []string
	for _, r := range d.Related {
		names = append(names, r.Object.Name+"@"+itoa(r.Line)+" "+r.Message)
	}
	want := []string{`bs.example.com@11 also CustomResourceDefinition "bs.example.com"`, `fs.example.com@44 also CustomResourceDefinition "fs.example.com"`}
	if strings.Join(names, "; ") != strings.Join(want, "; ") {
		t.Errorf("related: got %q, want %q", names, want)
	}
	other := find(res.Diagnostics, rules.UnservedAPIVersionRule, "other.yaml")
	if len(other) != 1 || strings.HasPrefix(other[0].Message, "1 ") || len(other[0].Related) != 0 {
		t.Errorf("want other.yaml's own finding, unchanged; got%s", dump(other))
	}
}

// v1beta1Webhook is an archived install manifest's webhook configuration,
// removed in 1.22, leaving every v1beta1 default to the server.
func v1beta1Webhook(name string) string {
	return `apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata:
  name: ` + name + `
webhooks:
- name: ` + name + `.example.com
  clientConfig:
    url: https://example.com/` + name + `
`
}

// Folded, the v1beta1 finding on several configurations of one file
// offers one fix that moves them all to v1; made, it leaves no v1beta1
// finding in the file.
func TestUnservedWebhooksOncePerFileFix(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "install.yaml")
	text := v1beta1Webhook("a") + "---\n" + v1beta1Webhook("b")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, []string{dir}, source.Options{})
	got := find(res.Diagnostics, rules.UnservedAPIVersionRule, "install.yaml")
	if len(got) != 1 || !strings.HasPrefix(got[0].Message, "2 ValidatingWebhookConfigurations in this file: ") || len(got[0].Fixes) != 1 {
		t.Fatalf("want one finding counting 2 configurations, with one fix; got%s", dump(got))
	}
	fixed, err := fix.Apply([]byte(text), got[0].Fixes[0].Edits)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(fixed), "apiVersion: admissionregistration.k8s.io/v1\n"); n != 2 {
		t.Errorf("the fix moved %d configurations to v1, want 2:\n%s", n, fixed)
	}
	if err := os.WriteFile(file, fixed, 0o644); err != nil {
		t.Fatal(err)
	}
	if left := find(run(t, []string{dir}, source.Options{}).Diagnostics, rules.UnservedAPIVersionRule, "install.yaml"); len(left) != 0 {
		t.Errorf("after the fix:%s", dump(left))
	}
}
