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

// nsChart is a chart whose webhook exempts the namespace its values name
// (fluid's charts/fluid/fluid: `namespace: fluid-system`, installed with
// `helm install -n fluid-system`), while its backend runs in the release
// namespace: whether the webhook blocks its own backend depends on the
// namespace it is installed into.
func nsChart() map[string]string {
	return map[string]string{
		"chart/Chart.yaml":  "apiVersion: v2\nname: ns\nversion: 0.1.0\n",
		"chart/values.yaml": "namespace: fluid-system\n",
		"chart/templates/webhook.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: pods
webhooks:
- name: pods.example.com
  clientConfig:
    service: {name: backend, namespace: {{ .Release.Namespace }}, path: /mutate}
    caBundle: Zm9v
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [{{ .Values.namespace }}, kube-system, kube-node-lease]}
  failurePolicy: Fail
  timeoutSeconds: 5
  sideEffects: None
  admissionReviewVersions: [v1]
`,
		"chart/templates/backend.yaml": `apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: {{ .Release.Namespace }}
spec:
  selector: {app: backend}
  ports: [{port: 443, targetPort: 9443}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: backend
  namespace: {{ .Release.Namespace }}
spec:
  replicas: 2
  selector: {matchLabels: {app: backend}}
  template:
    metadata: {labels: {app: backend}}
    spec:
      containers:
      - name: server
        image: example.com/backend:1
        ports: [{containerPort: 9443}]
        readinessProbe: {httpGet: {path: /readyz, port: 9443}}
`,
	}
}

// With no namespace given, a finding that holds only in the assumed
// "default" is info and says how to state the namespace; given the
// namespace the values name, it is gone; given another, it is a warning.
func TestChartNamespaceAssumed(t *testing.T) {
	root := testkit.Repo(t, nsChart())
	chart := filepath.Join(root, "chart")
	got := find(run(t, []string{chart}, source.Options{}).Diagnostics, "self-deadlock", "templates/webhook.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info ||
		!strings.HasSuffix(got[0].Message, `; assuming release namespace "default": set charts[].namespace or --namespace`) {
		t.Fatalf("want one info self-deadlock naming the assumption:%s", dump(got))
	}
	if got := find(run(t, []string{chart}, source.Options{Namespace: "fluid-system"}).Diagnostics, "self-deadlock", ""); len(got) != 0 {
		t.Errorf("installed into fluid-system, the webhook exempts its backend:%s", dump(got))
	}
	for _, so := range []source.Options{
		{Namespace: "apps"},
		{ChartConfigs: []source.Chart{{Dir: chart, Namespace: "apps"}}},
	} {
		got := find(run(t, []string{chart}, so).Diagnostics, "self-deadlock", "templates/webhook.yaml")
		if len(got) != 1 || got[0].Severity != diag.Warning || strings.Contains(got[0].Message, "assuming") {
			t.Errorf("%+v: a given namespace is a fact, want a warning:%s", so, dump(got))
		}
	}
}

// A finding that holds in every namespace keeps its level and message.
func TestChartNamespaceIndependentFinding(t *testing.T) {
	files := nsChart()
	files["chart/templates/backend.yaml"] = strings.Replace(files["chart/templates/backend.yaml"], "replicas: 2", "replicas: 1", 1)
	root := testkit.Repo(t, files)
	got := find(run(t, []string{filepath.Join(root, "chart")}, source.Options{}).Diagnostics, "backend-availability", "templates/backend.yaml")
	if len(got) != 1 || got[0].Severity != diag.Warning || strings.Contains(got[0].Message, "assuming") {
		t.Fatalf("want the 1-replica warning as it is:%s", dump(got))
	}
}

// A template that fails because a dependency that is not vendored would
// have set the values it reads (external-secrets' bitwarden-sdk-server
// from an OCI registry) is not an error at the template line: the
// dependency's note at its Chart.yaml entry says what is missing.
func TestMissingDependencyFillsTemplate(t *testing.T) {
	root := testkit.Repo(t, map[string]string{
		"chart/Chart.yaml":          "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: sdk-server\n  alias: sdk\n  version: 1.x\n  repository: oci://ghcr.io/example/charts\n",
		"chart/values.yaml":         "replicas: 1\n",
		"chart/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  port: {{ .Values.sdk.service.port | quote }}\n",
		"chart/templates/own.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\ndata:\n  x: {{ .Values.own.x | quote }}\n",
		"chart/templates/fine.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n",
	})
	res := run(t, []string{filepath.Join(root, "chart")}, source.Options{})
	filled := find(res.Diagnostics, "helm-render", "templates/cm.yaml")
	if len(filled) != 1 || filled[0].Severity != diag.Info || !strings.Contains(filled[0].Message, "missing dependency sdk-server") {
		t.Errorf("want the template the dependency would fill at info:%s", dump(res.Diagnostics))
	}
	if own := find(res.Diagnostics, "helm-render", "templates/own.yaml"); len(own) != 1 || own[0].Severity != diag.Error {
		t.Errorf("a failure of the chart's own values stays an error:%s", dump(res.Diagnostics))
	}
	note := find(res.Diagnostics, "helm-render", "Chart.yaml")
	if len(note) != 1 || note[0].Line != 5 || !strings.Contains(note[0].Message, "sdk-server") {
		t.Errorf("want one note at the dependency's entry (line 5):%s", dump(res.Diagnostics))
	}
}

// twinWebhook is one webhook configuration of a chart that writes a
// validating and a mutating twin (the same webhook text) in one template.
const twinWebhook = `webhooks:
- name: twin.example.com
  clientConfig:
    url: https://twin.example.com/hook
  rules:
  - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  failurePolicy: Fail
  timeoutSeconds: 30
  sideEffects: None
  admissionReviewVersions: [v1]
`

// When a conditional drops one twin, the other's findings are traced into
// its own text, not the first identical text of the template.
func TestTwinTemplatesTraceToTheirOwnText(t *testing.T) {
	tpl := "{{- if .Values.mutating }}\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: twin\n" +
		twinWebhook + "---\n{{- end }}\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: twin\n" + twinWebhook
	root := testkit.Repo(t, map[string]string{
		"chart/Chart.yaml":             "apiVersion: v2\nname: twins\nversion: 0.1.0\n",
		"chart/values.yaml":            "mutating: false\n",
		"chart/templates/webhook.yaml": tpl,
	})
	got := find(run(t, []string{filepath.Join(root, "chart")}, source.Options{}).Diagnostics, "timeout-too-long", "templates/webhook.yaml")
	// The validating twin's timeoutSeconds is on line 29 (the mutating one's on 13).
	if len(got) != 1 || got[0].Line != 29 {
		t.Fatalf("want the validating twin's timeoutSeconds (line 29):%s", dump(got))
	}
}

// A patch that a kustomization names only in a commented-out entry
// (fluid's webhookcainjection_patch.yaml, still v1beta1) is not applied:
// its findings are info and name the entry. Switched on and in v1 (the
// fixed form), the tree lints clean.
func TestCommentedOutPatchIsNotApplied(t *testing.T) {
	const dir = "../testdata/sources/context/disabled-patch"
	res := run(t, []string{dir}, source.Options{})
	got := find(res.Diagnostics, "unserved-api-version", "default/webhookcainjection_patch.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info ||
		!strings.HasSuffix(got[0].Message, "/disabled-patch/config/default/kustomization.yaml:9)") {
		t.Fatalf("want the v1beta1 finding at info, naming the commented-out entry:%s", dump(res.Diagnostics))
	}
	// What the disabled patch would have done is still missing from the build.
	if ca := find(res.Diagnostics, "ca-bundle", "webhook/manifests.yaml"); len(ca) != 1 || ca[0].Severity != diag.Warning {
		t.Errorf("want the build's empty-caBundle warning kept:%s", dump(res.Diagnostics))
	}
	// Named alone (pre-commit, an editor), the file says the same.
	alone := run(t, []string{dir + "/config/default/webhookcainjection_patch.yaml"}, source.Options{})
	if len(alone.Diagnostics) != 1 || alone.Diagnostics[0].Severity != diag.Info {
		t.Errorf("named alone, want the one info finding:%s", dump(alone.Diagnostics))
	}
	if fixed := run(t, []string{"../testdata/sources/context/disabled-patch-fixed"}, source.Options{}); len(fixed.Diagnostics) != 0 {
		t.Errorf("the fixed form lints clean:%s", dump(fixed.Diagnostics))
	}
}

// A file a kustomization names that the project's Makefile writes
// (gatekeeper's config/overlays/dev/manager_image_patch.yaml, from `make
// patch-image`) is not a broken tree: the build error is info and says how
// to make the file. After `make patch-image` (the fixed form) it builds.
func TestMissingGeneratedPatch(t *testing.T) {
	res := run(t, []string{"../testdata/sources/context/generated-patch"}, source.Options{})
	got := find(res.Diagnostics, "kustomize-build", "overlays/dev/kustomization.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || got[0].Line != 8 ||
		!strings.Contains(got[0].Message, "`make patch-image` writes it (") ||
		!strings.Contains(got[0].Message, "/generated-patch/Makefile:22): run it, then lint again") {
		t.Fatalf("want the missing patch at info, naming the Makefile target that writes it:%s", dump(res.Diagnostics))
	}
	fixed := run(t, []string{"../testdata/sources/context/generated-patch-fixed"}, source.Options{})
	for _, d := range fixed.Diagnostics {
		if d.Severity != diag.Info {
			t.Errorf("the fixed form builds: %s:%d %s", d.File, d.Line, d.Message)
		}
	}
}

// A missing file the repository's .gitignore keeps out of git is
// generated too; one nothing marks stays a build error.
func TestMissingIgnoredFile(t *testing.T) {
	files := map[string]string{
		".git/HEAD":                      "ref: refs/heads/main\n",
		".gitignore":                     "/deploy/dev/image_patch.yaml\n",
		"deploy/dev/kustomization.yaml":  "resources:\n- cm.yaml\npatches:\n- path: image_patch.yaml\n",
		"deploy/dev/cm.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
		"deploy/prod/kustomization.yaml": "resources:\n- missing.yaml\n",
	}
	root := testkit.Repo(t, files)
	res := run(t, []string{filepath.Join(root, "deploy", "dev")}, source.Options{})
	got := find(res.Diagnostics, "kustomize-build", "dev/kustomization.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || !strings.Contains(got[0].Message, ".gitignore keeps it out of git") {
		t.Fatalf("want the ignored patch at info:%s", dump(res.Diagnostics))
	}
	res = run(t, []string{filepath.Join(root, "deploy", "prod")}, source.Options{})
	if got := find(res.Diagnostics, "kustomize-build", "prod/kustomization.yaml"); len(got) != 1 || got[0].Severity != diag.Error {
		t.Fatalf("want a missing file nothing generates to stay an error:%s", dump(res.Diagnostics))
	}
}

// controller-gen writes the webhook configurations it generates to
// manifests.yaml in its webhook artifacts folder: logging-operator's
// (51679aa50c20) Makefile runs it from pkg/sdk with
// output:webhook:artifacts:config=../../config/webhook, so the missing
// config/webhook/manifests.yaml is info naming the target; the same line
// writing another folder leaves it an error.
func TestMissingControllerGenManifests(t *testing.T) {
	recipe := "manifests: ${CONTROLLER_GEN} ## Generate manifests e.g. CRD, RBAC etc.\n" +
		"\tcd pkg/sdk && $(CONTROLLER_GEN) $(CRD_OPTIONS)  webhook paths=\"./...\" output:crd:artifacts:config=../../config/crd/bases output:webhook:artifacts:config=%s\n"
	for dir, want := range map[string]diag.Severity{"../../config/webhook": diag.Info, "../../config/hooks": diag.Error} {
		root := testkit.Repo(t, map[string]string{
			".git/HEAD":                         "ref: refs/heads/main\n",
			"Makefile":                          fmt.Sprintf(recipe, dir),
			"config/webhook/kustomization.yaml": "resources:\n- manifests.yaml\n- service.yaml\n",
			"config/webhook/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: webhook-service\n",
		})
		res := run(t, []string{filepath.Join(root, "config", "webhook")}, source.Options{})
		got := find(res.Diagnostics, "kustomize-build", "webhook/kustomization.yaml")
		if len(got) != 1 || got[0].Severity != want || (want == diag.Info && !strings.Contains(got[0].Message, "`make manifests` writes it (")) {
			t.Errorf("artifacts in %s: want the missing manifests.yaml at %v:%s", dir, want, dump(res.Diagnostics))
		}
	}
}

// A script of scripts/ writes a file by a path from the repository root
// (capm3's scripts/ci-e2e.sh at 2f6d76b88b8a: `echo … >
// "${REPO_ROOT}"/test/e2e/data/…/basic-auth/ironic-username`): the
// secretGenerator's missing file is info naming the script's line.
func TestMissingFileScriptWritesFromRoot(t *testing.T) {
	root := testkit.Repo(t, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		"scripts/ci-e2e.sh":       "#!/bin/bash\nREPO_ROOT=$(dirname \"$0\")/..\necho \"${IRONIC_USERNAME}\" > \"${REPO_ROOT}\"/auth/ironic-username\n",
		"auth/kustomization.yaml": "secretGenerator:\n- name: ironic-auth\n  files:\n  - username=ironic-username\n",
	})
	res := run(t, []string{filepath.Join(root, "auth")}, source.Options{})
	got := find(res.Diagnostics, "kustomize-build", "auth/kustomization.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || !strings.Contains(got[0].Message, "scripts/ci-e2e.sh:3 writes it") {
		t.Errorf("want the missing file at info, naming the script's line:%s", dump(res.Diagnostics))
	}
}

// A copy of a repository's config folder, without the repository (the
// layouts corpus copies gatekeeper's config/ without the Makefile whose
// `make patch-image` writes the dev overlay's patch): what makes the
// missing file is not in the input, so its absence is info, saying so; the
// same tree in a checkout is an error (TestMissingIgnoredFile).
func TestMissingFileOutsideRepository(t *testing.T) {
	root := t.TempDir() // not testkit.Repo, which makes a checkout
	dev := filepath.Join(root, "config", "overlays", "dev")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"kustomization.yaml": "resources:\n- cm.yaml\npatchesStrategicMerge:\n- manager_image_patch.yaml\n",
		"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
	} {
		if err := os.WriteFile(filepath.Join(dev, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, []string{filepath.Join(root, "config")}, source.Options{})
	got := find(res.Diagnostics, "kustomize-build", "dev/kustomization.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || !strings.Contains(got[0].Message,
		"'manager_image_patch.yaml' does not exist; not in a repository: lint the checkout") {
		t.Fatalf("want the missing patch at info, naming what is not known:%s", dump(res.Diagnostics))
	}
}

// One replica is one gap whatever carries the count: an autoscaler's
// minReplicas taken from chart values (ingress-nginx's
// controller.autoscaling.minReplicas) is info like a replica count from
// values, at the autoscaler's line; written literally it is a warning.
// With the chart's HA values (the fixed form) there is nothing to report.
func TestAutoscalerMinReplicasFromValues(t *testing.T) {
	const chart = "../testdata/sources/context/hpa-chart"
	got := find(run(t, []string{chart}, source.Options{}).Diagnostics, "backend-availability", "templates/controller-hpa.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || got[0].Line != 12 || !strings.Contains(got[0].Message, "1 replica (autoscaler minReplicas, chart value)") {
		t.Fatalf("want the autoscaler's 1 replica from values at info:%s", dump(got))
	}
	files := map[string]string{}
	for _, name := range []string{"Chart.yaml", "values.yaml", "templates/controller.yaml", "templates/controller-hpa.yaml", "templates/controller-pdb.yaml", "templates/validating-webhook.yaml"} {
		data, err := os.ReadFile(filepath.Join(chart, name))
		if err != nil {
			t.Fatal(err)
		}
		files["chart/"+name] = strings.Replace(string(data), "{{ .Values.controller.autoscaling.minReplicas }}", "1", 1)
	}
	literal := find(run(t, []string{filepath.Join(testkit.Repo(t, files), "chart")}, source.Options{}).Diagnostics, "backend-availability", "templates/controller-hpa.yaml")
	if len(literal) != 1 || literal[0].Severity != diag.Warning {
		t.Fatalf("want a literal minReplicas: 1 at warning:%s", dump(literal))
	}
	fixed := run(t, nil, source.Options{Charts: []string{chart}, ValuesFiles: []string{filepath.Join(chart, "values-ha.yaml")}})
	if ba := find(fixed.Diagnostics, "backend-availability", ""); len(ba) != 0 {
		t.Errorf("with values-ha.yaml the backend is available:%s", dump(ba))
	}
}

// A missing PodDisruptionBudget is located at the workload's own document,
// where the budget is added, not at a strategic-merge patch that only names
// the Deployment (kubebuilder's manager_auth_proxy_patch.yaml). With the
// budget (the fixed form) nothing is reported.
func TestMissingBudgetAtTheWorkload(t *testing.T) {
	res := run(t, []string{"../testdata/sources/context/pdb-at-workload"}, source.Options{})
	got := find(res.Diagnostics, "backend-availability", "")
	if len(got) != 1 || !strings.HasSuffix(filepath.ToSlash(got[0].File), "config/manager/manager.yaml") || got[0].Line != 4 {
		t.Fatalf("want the missing budget at manager.yaml:4 (the Deployment's name):%s", dump(res.Diagnostics))
	}
	if fixed := run(t, []string{"../testdata/sources/context/pdb-at-workload-fixed"}, source.Options{}); len(fixed.Diagnostics) != 0 {
		t.Errorf("the fixed form lints clean:%s", dump(fixed.Diagnostics))
	}
}

// An overlay whose own patch lowers its base's replicas (marin3r's e2e
// config/test: 1 over config/webhook's 2) is a variant that is only
// assumed deployed: its one-replica finding is info and says so, and its
// related location, the base's value, says how to state that it is
// deployed. Named in units.entries, it is a warning; without the
// patch (the fixed form), there is nothing to report.
func TestOverlayLoweringReplicasIsAVariant(t *testing.T) {
	const dir = "../testdata/sources/context/test-overlay"
	got := find(run(t, []string{dir}, source.Options{}).Diagnostics, "backend-availability", "config/test/webhook_patch.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || got[0].Line != 7 ||
		!strings.HasSuffix(got[0].Message, "; assumed a test variant, not deployed") {
		t.Fatalf("want the lowered replica count at info, with the assumption:%s", dump(got))
	}
	base := slices.IndexFunc(got[0].Related, func(r diag.Related) bool {
		return strings.HasSuffix(r.File, "/config/webhook/webhook.yaml") && r.Line == 22 &&
			strings.HasPrefix(r.Message, "replicas 2 in the base; ") &&
			strings.HasSuffix(r.Message, "/config/test lowers it to 1, as test variants do; if it is deployed, name it in units.entries")
	})
	if base < 0 {
		t.Fatalf("want the base's value as related location, saying how to state the variant is deployed: %+v", got[0].Related)
	}
	given := find(run(t, []string{dir}, source.Options{Deployed: []string{dir + "/config/test"}}).Diagnostics, "backend-availability", "config/test/webhook_patch.yaml")
	if len(given) != 1 || given[0].Severity != diag.Warning || strings.Contains(given[0].Message, "assumed") {
		t.Fatalf("named in units.entries, want the warning as it is:%s", dump(given))
	}
	if fixed := run(t, []string{"../testdata/sources/context/test-overlay-fixed"}, source.Options{}); len(fixed.Diagnostics) != 0 {
		t.Errorf("the fixed form lints clean:%s", dump(fixed.Diagnostics))
	}
}

// A template that stops for a value the installer must give (linkerd's
// identity issuer certificate) is info when it writes nothing the rules
// judge: only context objects were not rendered. The same stop in a
// template that writes a webhook configuration is a warning. Given the
// value (the fixed form), the chart renders whole.
func TestRequiredValueOutsideJudgedKinds(t *testing.T) {
	const chart = "../testdata/sources/context/required-value"
	got := find(run(t, []string{chart}, source.Options{}).Diagnostics, "helm-render", "templates/identity.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || !strings.HasSuffix(got[0].Message, "; no webhook or policy in it") {
		t.Fatalf("want the required value at info:%s", dump(got))
	}
	files := map[string]string{}
	for _, name := range []string{"Chart.yaml", "values.yaml", "templates/_helpers.tpl", "templates/identity.yaml"} {
		data, err := os.ReadFile(filepath.Join(chart, name))
		if err != nil {
			t.Fatal(err)
		}
		files["chart/"+name] = string(data)
	}
	files["chart/templates/identity.yaml"] += "---\nkind: ValidatingWebhookConfiguration\n"
	judged := find(run(t, []string{filepath.Join(testkit.Repo(t, files), "chart")}, source.Options{}).Diagnostics, "helm-render", "templates/identity.yaml")
	if len(judged) != 1 || judged[0].Severity != diag.Warning {
		t.Fatalf("a template that writes a webhook configuration keeps the warning:%s", dump(judged))
	}
	fixed := run(t, nil, source.Options{Charts: []string{chart}, ValuesFiles: []string{filepath.Join(chart, "values-issuer.yaml")}})
	if len(fixed.Diagnostics) != 0 {
		t.Errorf("given the certificate, the chart renders clean:%s", dump(fixed.Diagnostics))
	}
}

// milvusChart is zilliztech/milvus-operator's chart before
// https://github.com/zilliztech/milvus-operator/pull/513, trimmed: the
// Service and the webhook follow chart.fullname (the release name, or
// release-chart), the Certificate's dnsNames were written out for the
// release name of its install docs (`helm install milvus-operator`).
func milvusChart() map[string]string {
	return map[string]string{
		"chart/Chart.yaml": "apiVersion: v2\nname: milvus-operator\nversion: 0.1.0\n",
		"chart/templates/_helpers.tpl": `{{- define "chart.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}{{ .Release.Name | trunc 63 }}{{ else }}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 }}{{ end }}
{{- end }}
`,
		"chart/templates/certificate.yaml": `apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: '{{ include "chart.fullname" . }}-serving-cert'
  namespace: {{ .Release.Namespace }}
spec:
  dnsNames:
  - milvus-operator-webhook-service.{{ .Release.Namespace }}.svc
  issuerRef: {kind: Issuer, name: selfsigned}
  secretName: '{{ include "chart.fullname" . }}-webhook-cert'
`,
		"chart/templates/webhook.yaml": `apiVersion: v1
kind: Service
metadata:
  name: '{{ include "chart.fullname" . }}-webhook-service'
  namespace: {{ .Release.Namespace }}
spec:
  ports: [{port: 443, targetPort: 9443}]
  selector: {app: milvus-operator}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  annotations:
    cert-manager.io/inject-ca-from: '{{ .Release.Namespace }}/{{ include "chart.fullname" . }}-serving-cert'
  name: '{{ include "chart.fullname" . }}-mutating-webhook-configuration'
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: '{{ include "chart.fullname" . }}-webhook-service'
      namespace: {{ .Release.Namespace | quote }}
      path: /mutate-milvus-io-v1beta1-milvus
  failurePolicy: Fail
  name: mmilvus.kb.io
  rules:
  - {apiGroups: [milvus.io], apiVersions: [v1beta1], operations: [CREATE, UPDATE], resources: [milvuses]}
  sideEffects: None
`,
	}
}

// A serving-certificate finding that the chart's own name as release name
// (its install docs' `helm install milvus-operator`) does not have rests on
// the assumed release name: info, naming it; a given release name is a
// fact, and a warning.
func TestChartReleaseNameAssumed(t *testing.T) {
	root := testkit.Repo(t, milvusChart())
	chart := filepath.Join(root, "chart")
	got := find(run(t, []string{chart}, source.Options{}).Diagnostics, "serving-certificate", "templates/certificate.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info ||
		!strings.HasSuffix(got[0].Message, `; assuming release name "release-name": set charts[].releaseName in .webhooklint.yaml`) {
		t.Fatalf("want one info serving-certificate naming the assumption:%s", dump(got))
	}
	so := source.Options{ChartConfigs: []source.Chart{{Dir: chart, ReleaseName: "milvus", Namespace: "milvus-operator"}}}
	got = find(run(t, []string{chart}, so).Diagnostics, "serving-certificate", "templates/certificate.yaml")
	if len(got) != 1 || got[0].Severity != diag.Warning || strings.Contains(got[0].Message, "assuming") {
		t.Errorf("a given release name is a fact, want a warning:%s", dump(got))
	}
	so.ChartConfigs[0].ReleaseName = "milvus-operator"
	if got := find(run(t, []string{chart}, so).Diagnostics, "serving-certificate", ""); len(got) != 0 {
		t.Errorf("released as milvus-operator, the names match:%s", dump(got))
	}
}

// A base built alone whose var names an object of a sibling base
// (logging-operator's config/certmanager, commented out in config/default,
// names the Service of ../webhook) fails only because its overlay is not
// there to resolve it: info, naming what makes it a base. The same error in
// a kustomization that is deployed stays an error.
func TestBaseVarsResolvedByOverlay(t *testing.T) {
	vars := "resources:\n- cm.yaml\nvars:\n- name: NAMESPACE\n  objref: {kind: Service, version: v1, name: webhook-service}\n  fieldref: {fieldpath: metadata.namespace}\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata: {ns: $(NAMESPACE)}\n"
	root := testkit.Repo(t, map[string]string{
		"config/default/kustomization.yaml":     "resources:\n- ../manager\n# - ../certmanager\n",
		"config/manager/kustomization.yaml":     "resources:\n- cm.yaml\n",
		"config/manager/cm.yaml":                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: manager\n",
		"config/certmanager/kustomization.yaml": vars,
		"config/certmanager/cm.yaml":            cm,
		"deploy/kustomization.yaml":             vars,
		"deploy/cm.yaml":                        cm,
	})
	res := run(t, []string{root}, source.Options{})
	got := find(res.Diagnostics, "kustomize-build", "certmanager/kustomization.yaml")
	if len(got) != 1 || got[0].Severity != diag.Info || !strings.Contains(got[0].Message, "cannot be mapped") ||
		!strings.Contains(got[0].Message, "; a base (commented out at ") || !strings.Contains(got[0].Message, "): its overlay resolves vars; its files are linted alone") {
		t.Fatalf("want the base's var error at info, naming the commented-out entry:%s", dump(res.Diagnostics))
	}
	if got := find(res.Diagnostics, "kustomize-build", "deploy/kustomization.yaml"); len(got) != 1 || got[0].Severity != diag.Error {
		t.Fatalf("want a deployed kustomization's var error to stay an error:%s", dump(res.Diagnostics))
	}
}

// An OLM package-manifest tree (argocd-operator's deploy/olm-catalog)
// keeps every release: a version folder whose CSV the package.yaml's
// channel has moved past is an archive, its findings info with one note
// naming the channel. The channel's current bundle and a newer one keep
// their levels; units.entries naming the old folder keeps its levels too.
func TestArchivedOLMBundleIsInfo(t *testing.T) {
	const dir = "../testdata/sources/context/olm-package"
	const pkg = dir + "/deploy/olm-catalog/argocd-operator"
	res := run(t, []string{dir}, source.Options{})
	old := find(res.Diagnostics, "unserved-api-version", "0.0.2/argocd-operator-appproject.crd.yaml")
	if len(old) != 1 || old[0].Severity != diag.Info {
		t.Fatalf("want the archived bundle's v1beta1 finding at info:%s", dump(res.Diagnostics))
	}
	note := find(res.Diagnostics, "olm-archived-bundle", "0.0.2/argocd-operator-appproject.crd.yaml")
	if len(note) != 1 || note[0].Line != old[0].Line || note[0].Message != "archived OLM bundle 0.0.2 (argocd-operator.package.yaml's alpha channel "+
		"is at argocd-operator.v0.17.0): 1 finding at info; lint the current bundle, or name this folder in units.entries" {
		t.Errorf("want one note at the finding naming the channel:%s", dump(res.Diagnostics))
	}
	for _, v := range []string{"0.17.0", "0.18.0"} {
		got := find(res.Diagnostics, "unserved-api-version", v+"/argoproj.io_appprojects.yaml")
		if len(got) != 1 || got[0].Severity != diag.Error {
			t.Errorf("%s is current or newer: want its finding an error:%s", v, dump(res.Diagnostics))
		}
	}
	if notes := find(res.Diagnostics, "olm-archived-bundle", ""); len(notes) != 1 {
		t.Errorf("want only 0.0.2's note, 0.17.0 and 0.18.0 are not archived:%s", dump(notes))
	}
	given := run(t, []string{dir}, source.Options{Deployed: []string{pkg + "/0.0.2"}})
	if got := find(given.Diagnostics, "unserved-api-version", "0.0.2/argocd-operator-appproject.crd.yaml"); len(got) != 1 || got[0].Severity != diag.Error {
		t.Errorf("named in units.entries, want the error as it is:%s", dump(given.Diagnostics))
	}
}

// Where spec.version is no semver, the replaces chain below the channel's
// current CSV still says a release is archived; a folder neither below it
// nor comparable keeps its level (nothing states it is archived).
func TestArchivedOLMBundleByReplaces(t *testing.T) {
	const crd = "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.example.com\nspec:\n  group: example.com\n" +
		"  names:\n    kind: Foo\n    plural: foos\n  scope: Namespaced\n  version: v1\n"
	csv := func(name, version, replaces string) string {
		return "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: " + name +
			"\nspec:\n  version: " + version + "\n  replaces: " + replaces + "\n"
	}
	root := testkit.Repo(t, map[string]string{
		"op/op.package.yaml":                   "packageName: op\nchannels:\n- name: stable\n  currentCSV: op.b\n",
		"op/a/op.a.clusterserviceversion.yaml": csv("op.a", "first", ""),
		"op/a/foo.crd.yaml":                    crd,
		"op/b/op.b.clusterserviceversion.yaml": csv("op.b", "second", "op.a"),
		"op/b/foo.crd.yaml":                    crd,
		"op/c/op.c.clusterserviceversion.yaml": csv("op.c", "third", ""),
		"op/c/foo.crd.yaml":                    crd,
	})
	res := run(t, []string{root}, source.Options{})
	for dir, want := range map[string]diag.Severity{"a": diag.Info, "b": diag.Error, "c": diag.Error} {
		got := find(res.Diagnostics, "unserved-api-version", "/op/"+dir+"/foo.crd.yaml")
		if len(got) != 1 || got[0].Severity != want {
			t.Errorf("op/%s: want the v1beta1 finding at %v:%s", dir, want, dump(res.Diagnostics))
		}
	}
	if notes := find(res.Diagnostics, "olm-archived-bundle", "/op/a/foo.crd.yaml"); len(notes) != 1 ||
		!strings.HasPrefix(notes[0].Message, "archived OLM bundle first (op.package.yaml's stable channel is at op.b)") {
		t.Errorf("want op/a's note:%s", dump(res.Diagnostics))
	}
}
