package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// installOrderBackend is a fail-closed webhook on ClusterDefinitions and
// ConfigMaps with its backend; the objects each test adds decide.
const installOrderBackend = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterdefinitions.apps.db.example.com
spec:
  group: apps.db.example.com
  names: {kind: ClusterDefinition, plural: clusterdefinitions}
  scope: Cluster
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: v1
kind: Service
metadata: {name: db-operator, namespace: db-system}
spec:
  selector: {app: db-operator}
  ports: [{port: 443}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db-operator, namespace: db-system}
spec:
  selector: {matchLabels: {app: db-operator}}
  template:
    metadata: {labels: {app: db-operator}}
    spec: {containers: [{name: manager, image: example.com/db-operator:1}]}
`

const installOrderWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: db-operator}
webhooks:
- name: v.kb.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  clientConfig:
    service: {name: db-operator, namespace: db-system}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: In, values: [apps]}
  rules:
  - {apiGroups: [apps.db.example.com], apiVersions: [v1alpha1], operations: [CREATE], resources: [clusterdefinitions]}
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
`

const installOrderObjects = `apiVersion: apps.db.example.com/v1alpha1
kind: ClusterDefinition
metadata: {name: mysql}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: apps}
`

func installOrderFindings(t *testing.T, u Unit) []diag.Diagnostic {
	t.Helper()
	res := LintUnit(u, Options{Enabled: func(name string) bool { return name == rules.InstallOrderRule }})
	if len(res.Internal) > 0 {
		t.Fatal(res.Internal[0])
	}
	return slices.DeleteFunc(res.Diagnostics, func(d diag.Diagnostic) bool { return d.Rule != rules.InstallOrderRule })
}

// Helm creates the release's objects by kind, whatever the order of the
// templates: custom resources after webhook configurations, ConfigMaps
// before them.
func TestInstallOrderFollowsHelmKindsInARelease(t *testing.T) {
	text := installOrderBackend + "---\n" + installOrderObjects + "---\n" + installOrderWebhook
	f := manifest.Parse("chart.yaml", []byte(text))
	if ds := installOrderFindings(t, Unit{Files: []*manifest.File{f}}); len(ds) != 0 {
		t.Fatalf("objects before the webhook in a plain file: got %v", ds)
	}
	f = manifest.Parse("chart.yaml", []byte(text))
	ds := installOrderFindings(t, Unit{Files: []*manifest.File{f}, HelmRelease: true})
	if len(ds) != 1 || ds[0].Severity != diag.Warning ||
		!strings.HasPrefix(ds[0].Message, `blocks its install: ClusterDefinition "mysql" is created`) {
		t.Fatalf("want one warning on the ClusterDefinition alone, got %v", ds)
	}
}

// kubectl applies a folder's files by name, and a plain folder is one
// install only by assumption: there only the webhook's own file counts.
func TestInstallOrderInALooseFolderKeepsToTheWebhooksFile(t *testing.T) {
	files := func() []*manifest.File {
		return []*manifest.File{
			manifest.Parse("a-webhook.yaml", []byte(installOrderBackend+"---\n"+installOrderWebhook+"---\n"+installOrderObjects)),
			manifest.Parse("b-objects.yaml", []byte(strings.ReplaceAll(installOrderObjects, "mysql", "other"))),
		}
	}
	ds := installOrderFindings(t, Unit{Files: files()})
	if len(ds) != 1 || !strings.Contains(ds[0].Message, `ClusterDefinition "mysql" and 3 more are created`) {
		t.Fatalf("stated unit: got %v", ds)
	}
	ds = installOrderFindings(t, Unit{Files: files(), Loose: &rules.LooseFolder{Folder: "deploy", How: "list it in units.folders"}})
	if len(ds) != 1 || ds[0].Severity != diag.Warning ||
		!strings.Contains(ds[0].Message, `ClusterDefinition "mysql", ConfigMap "apps/settings" are created`) {
		t.Fatalf("loose folder: got %v", ds)
	}
}

// kubectl apply -k creates webhook configurations last.
func TestInstallOrderSkipsKustomizeBuilds(t *testing.T) {
	f := manifest.Parse("build.yaml", []byte(installOrderBackend+"---\n"+installOrderWebhook+"---\n"+installOrderObjects))
	if ds := installOrderFindings(t, Unit{Files: []*manifest.File{f}, KustomizeBuild: true}); len(ds) != 0 {
		t.Fatalf("got %v", ds)
	}
}
