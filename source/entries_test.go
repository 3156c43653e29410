package source_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/source"
)

// what compares findings across layouts of the same objects: rule,
// severity and message, not where they are.
func what(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%s %s: %s", d.Rule, d.Severity, d.Message))
	}
	slices.Sort(out)
	return out
}

// The README example split into one file per document in a plain folder
// (what `kubectl apply -f DIR` installs) gets the findings the one file
// gets: the folder is one unit.
func TestSplitFolderIsOneUnit(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "webhooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	whole := run(t, []string{filepath.Join("..", "examples", "webhooks.yaml")}, source.Options{})
	files := map[string]string{}
	for i, doc := range strings.Split(string(data), "\n---\n") {
		files[fmt.Sprintf("deploy/%02d.yaml", i)] = doc + "\n"
	}
	root := testkit.Repo(t, files)
	split := run(t, []string{filepath.Join(root, "deploy")}, source.Options{})
	if !slices.Equal(what(whole.Diagnostics), what(split.Diagnostics)) {
		t.Errorf("split folder differs from the one file:\none file:\n  %s\nsplit:\n  %s",
			strings.Join(what(whole.Diagnostics), "\n  "), strings.Join(what(split.Diagnostics), "\n  "))
	}
	if len(files) < 4 || len(split.Diagnostics) == 0 {
		t.Fatalf("%d files, %d findings: the example no longer splits", len(files), len(split.Diagnostics))
	}
	// Each file named alone reports the findings located in it, the
	// backend's among them.
	for name := range files {
		f := filepath.Join(root, filepath.FromSlash(name))
		one := run(t, []string{f}, source.Options{})
		var want []diag.Diagnostic
		for _, d := range split.Diagnostics {
			if a, _ := filepath.Abs(d.File); a == f {
				want = append(want, d)
			}
		}
		if !slices.Equal(what(want), what(one.Diagnostics)) {
			t.Errorf("%s alone:\n  %s\nwant:\n  %s", name, strings.Join(what(one.Diagnostics), "\n  "), strings.Join(what(want), "\n  "))
		}
	}
}

const backendDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: policy
  namespace: app
spec:
  replicas: 1
  selector:
    matchLabels: {app: policy}
  template:
    metadata:
      labels: {app: policy}
    spec:
      containers:
      - name: server
        image: example.com/policy:1
        ports: [{name: https, containerPort: 9443}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
`

// A pull request that changes only the Deployment (replicas: 1) reports
// the backend finding it causes, located at replicas.
func TestChangedDeploymentReportsItsBackendFinding(t *testing.T) {
	files := webhookBase(map[string]string{})
	files["base/kustomization.yaml"] = "resources:\n- webhook.yaml\n- service.yaml\n- deployment.yaml\n"
	files["base/deployment.yaml"] = backendDeployment
	root := testkit.Repo(t, files)
	res := run(t, []string{filepath.Join(root, "base", "deployment.yaml")}, source.Options{})
	got := find(res.Diagnostics, "backend-availability", "base/deployment.yaml")
	if len(got) != 1 || got[0].Line != 7 || !strings.Contains(got[0].Message, "1 replica") {
		t.Fatalf("want the backend finding at replicas (line 7):%s", dump(res.Diagnostics))
	}
	if r := got[0].Related; len(r) != 1 || !strings.HasSuffix(filepath.ToSlash(r[0].File), "base/webhook.yaml") || r[0].Line == 0 {
		t.Errorf("want the webhook as related location: %+v", r)
	}
	// The same in a plain folder.
	plain := map[string]string{"deploy/deployment.yaml": backendDeployment}
	for name, content := range webhookBase(map[string]string{}) {
		if !strings.HasSuffix(name, "kustomization.yaml") {
			plain["deploy/"+filepath.Base(name)] = content
		}
	}
	root = testkit.Repo(t, plain)
	res = run(t, []string{filepath.Join(root, "deploy", "deployment.yaml")}, source.Options{})
	if got := find(res.Diagnostics, "backend-availability", "deploy/deployment.yaml"); len(got) != 1 || got[0].Line != 7 {
		t.Errorf("plain folder: want the backend finding at replicas:%s", dump(res.Diagnostics))
	}
}

// A pull request that changes only an overlay's namespace, so that the
// base's webhook now intercepts its own backend, reports the finding when
// only the overlay's kustomization.yaml is named.
func TestChangedOverlayNamespace(t *testing.T) {
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- webhook.yaml\n- service.yaml\n- deployment.yaml\n",
		"base/service.yaml":       webhookBase(map[string]string{})["base/service.yaml"],
		"base/deployment.yaml":    strings.Replace(backendDeployment, "replicas: 1", "replicas: 2", 1),
		"base/webhook.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy
webhooks:
- name: pods.policy.example.com
  admissionReviewVersions: ["v1"]
  sideEffects: None
  timeoutSeconds: 5
  clientConfig:
    service: {name: policy, namespace: app, path: /validate}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [app, kube-system, kube-node-lease]}
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["pods"]
`,
		"prod/kustomization.yaml": "namespace: policy-prod\nresources:\n- ../base\n",
	}
	root := testkit.Repo(t, files)
	res := run(t, []string{filepath.Join(root, "prod", "kustomization.yaml")}, source.Options{})
	if got := find(res.Diagnostics, "self-deadlock", "base/webhook.yaml"); len(got) != 1 || !strings.Contains(got[0].Message, `"policy-prod"`) {
		t.Errorf("want the self-deadlock the overlay's namespace creates:%s", dump(res.Diagnostics))
	}
}

// A change to a chart's values (replicas: 1) reports the finding it
// causes when only the values file is named.
func TestChangedChartValues(t *testing.T) {
	res := run(t, []string{filepath.Join(chartDir, "values.yaml")}, source.Options{ValuesFiles: []string{filepath.Join(chartDir, "values-strict.yaml")}})
	if got := find(res.Diagnostics, "backend-availability", "templates/deployment.yaml"); len(got) != 1 {
		t.Errorf("want the backend finding the values cause:%s", dump(res.Diagnostics))
	}
}
