package source_test

import (
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/source"
)

// webhookFile is controller-gen's config/webhook/manifests.yaml (the
// kubebuilder placeholder Service system/webhook-service), copied into a
// folder beside another project's install (security-profiles-operator's
// deploy/webhook-operator.yaml, whose Service has the same name in its own
// namespace): the shape of a folder of unrelated examples.
const webhookFile = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- name: vwidget.example.com
  clientConfig:
    service: {name: webhook-service, namespace: system, path: /validate}
    caBundle: Zm9v
  rules:
  - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
`

const otherService = `apiVersion: v1
kind: Service
metadata:
  name: webhook-service
  namespace: security-profiles-operator
spec:
  selector: {app: spo}
  ports: [{port: 443, targetPort: 9443}]
`

// A near match in another file of a plain folder rests on the files being
// one install, which nothing states: info, naming the assumption and how
// to state it. units.folders states it (a warning again); a near match in
// the same file is stated by the file itself.
func TestLooseFolderNearMatchAssumed(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{"webhook.yaml": webhookFile, "spo.yaml": otherService})
	got := find(run(t, []string{dir}, source.Options{}).Diagnostics, "unresolved-reference", "webhook.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || len(got[0].Related) != 1 ||
		!strings.HasSuffix(got[0].Related[0].Message, `(with spo.yaml): list it in units.folders`) {
		t.Fatalf("want the near match at info, naming the assumption: %+v", got)
	}
	given := run(t, []string{dir}, source.Options{Folders: []source.FolderUnits{{Dir: dir}}})
	if got := find(given.Diagnostics, "unresolved-reference", "webhook.yaml"); len(got) != 1 || got[0].Severity != diag.Warning ||
		len(got[0].Related) != 0 {
		t.Errorf("units.folders states the folder is one install: want a warning: %+v", got)
	}
	same := t.TempDir()
	testkit.WriteTree(t, same, map[string]string{"install.yaml": webhookFile + "---\n" + otherService, "other.yaml": otherService})
	if got := find(run(t, []string{same}, source.Options{}).Diagnostics, "unresolved-reference", "install.yaml"); len(got) != 1 || got[0].Severity != diag.Warning {
		t.Errorf("a near match in the same file: want a warning: %+v", got)
	}
}
