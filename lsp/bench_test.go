package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// monoApp is one app of hack/bench.sh's GitOps monorepo: a base (webhook
// configuration, Service and Deployment in app.yaml) and a prod overlay.
func writeMonorepo(tb testing.TB, dir string, apps int) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range apps {
		a := filepath.Join(dir, "apps", fmt.Sprintf("app-%04d", i))
		n := fmt.Sprintf("app-%d", i)
		files := map[string]string{
			"base/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: " + n + "\nresources:\n- app.yaml\n",
			"base/app.yaml":           monoAppYAML(n, 5),
			"prod/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../base\npatches:\n- target: {kind: Deployment, name: " + n + "}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 3\n",
		}
		testkit.WriteTree(tb, a, files)
	}
}

func monoAppYAML(n string, timeout int) string {
	return strings.NewReplacer("NAME", n, "TIMEOUT", fmt.Sprint(timeout)).Replace(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: NAME
webhooks:
- name: validate.NAME.example.com
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: ["v1"]
  timeoutSeconds: TIMEOUT
  clientConfig:
    service: {name: NAME, namespace: NAME, path: /validate}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}
  rules:
  - apiGroups: ["apps"]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [deployments]
    scope: Namespaced
---
apiVersion: v1
kind: Service
metadata:
  name: NAME
spec:
  selector: {app: NAME}
  ports:
  - {name: https, port: 443, targetPort: 9443}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  labels: {app: NAME}
spec:
  replicas: 1
  selector:
    matchLabels: {app: NAME}
  template:
    metadata:
      labels: {app: NAME}
    spec:
      containers:
      - name: webhook
        image: registry.example.com/NAME:1.0
        ports: [{containerPort: 9443}]
`)
}

// benchEdits opens file in a server and measures, per edit, the time from
// didChange to the diagnostics of that version (and the CPU time of the
// whole process per edit, the client's included): each edit flips the
// webhook's timeout between 5 and 31 (out of range), so every edit changes
// the findings. It reports p50 and p95 and the heap after the edits.
func benchEdits(b *testing.B, root, file, name string) {
	c := startServer(b)
	c.initialize(root)
	uri := pathURI(file)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": monoAppYAML(name, 5)}})
	c.wait("first diagnostics", func() bool { return c.versions[uri] >= 1 })
	var lat []time.Duration
	cpu := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := i + 2
		timeout := 31
		if i%2 == 1 {
			timeout = 5
		}
		start := time.Now()
		c.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": monoAppYAML(name, timeout)}},
		})
		c.wait("diagnostics of the edit", func() bool { return c.versions[uri] >= v })
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	slices.Sort(lat)
	ms := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MB")
}

// BenchmarkChangeLoneFile: a webhook file alone in its folder.
func BenchmarkChangeLoneFile(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "app.yaml")
	if err := os.WriteFile(file, []byte(monoAppYAML("app-0", 5)), 0o644); err != nil {
		b.Fatal(err)
	}
	benchEdits(b, dir, file, "app-0")
}

// benchApps is the monorepo's size: 2,000 apps, or WEBHOOKLINT_BENCH_APPS.
func benchApps() int {
	apps := 2000
	if s := os.Getenv("WEBHOOKLINT_BENCH_APPS"); s != "" {
		_, _ = fmt.Sscan(s, &apps)
	}
	return apps
}

// BenchmarkChangeMonorepo: a base's file in the 2,000-app monorepo of
// hack/bench.sh (WEBHOOKLINT_BENCH_APPS changes the size).
func BenchmarkChangeMonorepo(b *testing.B) {
	apps := benchApps()
	dir := b.TempDir()
	writeMonorepo(b, dir, apps)
	// A workspace's files were not all written in the last instant: past
	// the cache's racy window, its folders are checked by stat (racy ones
	// are read again), as they are in a repository an editor opens.
	time.Sleep(4 * time.Second)
	benchEdits(b, dir, filepath.Join(dir, "apps", "app-0000", "base", "app.yaml"), "app-0")
}

// BenchmarkChangeGitOpsMonorepo: the monorepo with a Flux Kustomization
// per app (its prod overlay, in one file of clusters/prod), as a GitOps
// repository writes them; the edit is a base's file, which one entry
// applies.
func BenchmarkChangeGitOpsMonorepo(b *testing.B) {
	apps := benchApps()
	dir := b.TempDir()
	writeMonorepo(b, dir, apps)
	var entries strings.Builder
	for i := range apps {
		fmt.Fprintf(&entries, `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: app-%[1]d
  namespace: flux-system
spec:
  interval: 10m
  sourceRef:
    kind: GitRepository
    name: flux-system
  path: ./apps/app-%04[1]d/prod
  prune: true
`, i)
	}
	if err := os.MkdirAll(filepath.Join(dir, "clusters", "prod"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "clusters", "prod", "apps.yaml"), []byte(entries.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	time.Sleep(4 * time.Second) // past the cache's racy window, as BenchmarkChangeMonorepo
	benchEdits(b, dir, filepath.Join(dir, "apps", "app-0000", "base", "app.yaml"), "app-0")
}
