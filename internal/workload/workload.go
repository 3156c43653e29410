// Package workload writes the generated inputs that hack/bench.sh measures
// and the cache's tests lint at a small scale: one generator for both, so
// that what is tested for byte-identical output is what is timed.
package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Workload is one kind of generated input, sized by a count of units.
type Workload struct {
	Name string // as hack/workload and hack/bench.sh name it
	Unit string // what Write counts, singular
	// Base is the count at ×1 of hack/bench.sh's scaling table; its
	// headline row is ×8.
	Base int
	// Write writes n units under dir, which it creates.
	Write func(dir string, n int) error
}

// All are the workloads, in hack/bench.sh's order.
var All = []Workload{
	{"configs", "configuration", 3000, Configs},
	{"mixed", "document", 5000, Mixed},
	{"broken", "configuration", 3000, Broken},
	{"monorepo", "app", 250, Monorepo},
}

// Named returns the workload called name.
func Named(name string) (Workload, bool) {
	for _, w := range All {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// writeAll writes files (path relative to dir -> text) under dir.
func writeAll(dir string, files map[string]string) error {
	for p, text := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}

// Configs writes n webhook configurations, one per file, two webhooks
// each (rules, selectors, a matchCondition; every fifth with a timeout
// the server rejects), clean otherwise.
func Configs(dir string, n int) error {
	files := make(map[string]string, n)
	for i := range n {
		kind := "ValidatingWebhookConfiguration"
		if i%2 == 1 {
			kind = "MutatingWebhookConfiguration"
		}
		policy, timeout := "Ignore", 31
		if i%3 != 0 {
			policy = "Fail"
		}
		if i%5 != 0 {
			timeout = 5
		}
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: admissionregistration.k8s.io/v1\nkind: %s\nmetadata:\n  name: hook-%d\n  labels: {app.kubernetes.io/name: hooks-%d}\nwebhooks:\n", kind, i, i%50)
		for w := range 2 {
			fmt.Fprintf(&b, "- name: w%d.hook-%d.example.com\n  failurePolicy: %s\n  sideEffects: None\n  admissionReviewVersions: [\"v1\"]\n  timeoutSeconds: %d\n", w, i, policy, timeout)
			fmt.Fprintf(&b, "  clientConfig:\n    service: {name: hooks-%d, namespace: hooks-%d, path: /validate}\n", i%50, i%50)
			b.WriteString("  namespaceSelector:\n    matchExpressions:\n    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}\n")
			b.WriteString("  matchConditions:\n  - name: not-system\n    expression: \"!request.userInfo.username.startsWith('system:')\"\n")
			b.WriteString("  rules:\n  - apiGroups: [\"\"]\n    apiVersions: [v1]\n    operations: [CREATE, UPDATE]\n    resources: [pods, configmaps]\n    scope: Namespaced\n")
		}
		files[fmt.Sprintf("hook-%05d.yaml", i)] = b.String()
	}
	return writeAll(dir, files)
}

// mixedPerFile is how many documents a file of Mixed holds.
const mixedPerFile = 200

// Mixed writes n documents, a Deployment and its Service in turn, 200 to a
// file, as a GitOps repository holds them: nothing the rules judge.
func Mixed(dir string, n int) error {
	files := map[string]string{}
	for i := 0; i*mixedPerFile < n; i++ {
		var b strings.Builder
		for j := 0; j < mixedPerFile && i*mixedPerFile+j < n; j += 2 {
			a := fmt.Sprintf("app-%d-%d", i, j)
			fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: team-%d\n  labels: {app: %s}\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: %s}\n  template:\n    metadata:\n      labels: {app: %s, tier: web}\n    spec:\n      serviceAccountName: %s\n      containers:\n      - name: web\n        image: registry.example.com/%s:1.0\n        ports: [{containerPort: 8080}]\n        resources: {requests: {cpu: 100m, memory: 128Mi}}\n", a, i, a, a, a, a, a)
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: team-%d\nspec:\n  selector: {app: %s}\n  ports:\n  - {name: http, port: 80, targetPort: 8080}\n", a, i, a)
		}
		files[fmt.Sprintf("apps-%03d.yaml", i)] = b.String()
	}
	return writeAll(dir, files)
}

// Broken writes n webhook configurations, one per file, each with about
// five findings (a large, badly broken input).
func Broken(dir string, n int) error {
	files := make(map[string]string, n)
	for i := range n {
		kind, effects := "ValidatingWebhookConfiguration", "Some"
		if i%2 == 1 {
			kind = "MutatingWebhookConfiguration"
		}
		if i%3 != 0 {
			effects = "None"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: admissionregistration.k8s.io/v1\nkind: %s\nmetadata:\n  name: broken-%d\nwebhooks:\n", kind, i)
		fmt.Fprintf(&b, "- name: w.broken-%d.example.com\n  failurePolicy: Fail\n  sideEffects: %s\n  admissionReviewVersions: [\"v1\"]\n  timeoutSeconds: %d\n", i, effects, 25+i%10)
		fmt.Fprintf(&b, "  matchPolicy: Fuzzy\n  namespaceSelector:\n    matchExpressions:\n    - {key: team, operator: Has}\n  clientConfig:\n    url: http://hooks-%d.example.com/validate\n", i%50)
		b.WriteString("  rules:\n  - apiGroups: [\"*\"]\n    apiVersions: [\"*\"]\n    operations: [\"*\"]\n    resources: [\"*\"]\n")
		files[fmt.Sprintf("broken-%05d.yaml", i)] = b.String()
	}
	return writeAll(dir, files)
}

// MonorepoChanged is the file of Monorepo that hack/bench.sh names as one
// changed file (the base of app 100, or of the last app in a smaller one).
func MonorepoChanged(apps int) string {
	return fmt.Sprintf("apps/app-%04d/base/app.yaml", min(100, apps-1))
}

// Monorepo writes a GitOps repository (a .git folder at its root) of n
// apps, each a base (a webhook configuration, its Service and Deployment
// in one file, and its kustomization) and a prod overlay that patches it.
func Monorepo(dir string, n int) error {
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	files := make(map[string]string, 3*n)
	for i := range n {
		a := fmt.Sprintf("apps/app-%04d/", i)
		app := fmt.Sprintf("app-%d", i)
		files[a+"base/kustomization.yaml"] = fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nresources:\n- app.yaml\n", app)
		files[a+"base/app.yaml"] = fmt.Sprintf("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: %[1]s\nwebhooks:\n- name: validate.%[1]s.example.com\n  failurePolicy: Fail\n  sideEffects: None\n  admissionReviewVersions: [\"v1\"]\n  timeoutSeconds: 5\n  clientConfig:\n    service: {name: %[1]s, namespace: %[1]s, path: /validate}\n  namespaceSelector:\n    matchExpressions:\n    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}\n  rules:\n  - apiGroups: [\"apps\"]\n    apiVersions: [v1]\n    operations: [CREATE, UPDATE]\n    resources: [deployments]\n    scope: Namespaced\n", app) +
			fmt.Sprintf("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %[1]s\nspec:\n  selector: {app: %[1]s}\n  ports:\n  - {name: https, port: 443, targetPort: 9443}\n", app) +
			fmt.Sprintf("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %[1]s\n  labels: {app: %[1]s}\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: %[1]s}\n  template:\n    metadata:\n      labels: {app: %[1]s}\n    spec:\n      containers:\n      - name: webhook\n        image: registry.example.com/%[1]s:1.0\n        ports: [{containerPort: 9443}]\n", app)
		files[a+"prod/kustomization.yaml"] = fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../base\npatches:\n- target: {kind: Deployment, name: %s}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n", app)
	}
	return writeAll(dir, files)
}
