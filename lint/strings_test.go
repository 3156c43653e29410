package lint

import (
	"testing"
	"unsafe"

	"github.com/webhooklint/webhooklint/manifest"
)

// The findings of a unit share the messages and paths they repeat: a folder
// of thousands of configurations holds them all until it is reported.
func TestFindingsShareRepeatedText(t *testing.T) {
	config := func(name string) *manifest.File {
		return manifest.Parse(name+".yaml", []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: `+name+`
webhooks:
- name: `+name+`.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 31
  clientConfig:
    url: https://hooks.example.com/validate
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps], scope: Namespaced}
`))
	}
	res := LintUnit(Unit{Files: []*manifest.File{config("a"), config("b")}}, Options{Jobs: 1})
	var found []string
	var paths []string
	for _, d := range res.Diagnostics {
		if d.Rule == "timeout-range" {
			found, paths = append(found, d.Message), append(paths, d.Path)
		}
	}
	if len(found) != 2 {
		t.Fatalf("want a timeout-range finding on each configuration, got %v", res.Diagnostics)
	}
	if found[0] != found[1] || unsafe.StringData(found[0]) != unsafe.StringData(found[1]) {
		t.Errorf("messages %q and %q are not one string", found[0], found[1])
	}
	if unsafe.StringData(paths[0]) != unsafe.StringData(paths[1]) {
		t.Errorf("paths %q and %q are not one string", paths[0], paths[1])
	}
}
