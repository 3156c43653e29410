package lint_test

import (
	"context"
	"strings"
	"sync"

	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/cli"

	yaml "go.yaml.in/yaml/v3"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/source"
)

// The benchmark workload: files of webhook configurations, valid and
// invalid, with matchConditions, each bundle with the Service and
// Deployment behind it — what a platform repository holds.
const (
	benchFiles       = 12
	benchDocsPerFile = 100 // webhook configurations per file
)

var benchExpressions = []string{
	`object.metadata.name != "x"`,
	`request.userInfo.username != "system:serviceaccount:kube-system:generic-garbage-collector"`,
	`!has(object.metadata.annotations) || !('kubernetes.io/config.mirror' in object.metadata.annotations)`,
	`request.operation != 'DELETE' && object.metadata.labels['app'] == 'web'`,
	`has(object.spec) && object.spec.replicas > 1`,
	`!(request.namespace in ['kube-system', 'kube-node-lease'])`,
	`object.metadata.name.startsWith('prod-') && request.dryRun != true`,
	`object.metadata.name ===`, // a compile error
}

func writeBenchWorkload(tb testing.TB) (dir string, docs int) {
	tb.Helper()
	dir = tb.TempDir()
	for f := range benchFiles {
		var b bytes.Buffer
		fmt.Fprintf(&b, "apiVersion: v1\nkind: Service\nmetadata: {name: hooks-%d, namespace: hooks-%d}\nspec:\n  selector: {app: hooks-%d}\n  ports: [{port: 443, targetPort: 9443}]\n", f, f, f)
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: hooks-%d, namespace: hooks-%d}\nspec:\n  template:\n    metadata:\n      labels: {app: hooks-%d}\n", f, f, f)
		docs += 2
		for i := range benchDocsPerFile {
			n := f*benchDocsPerFile + i
			kind := "ValidatingWebhookConfiguration"
			extra := ""
			if n%2 == 1 {
				kind = "MutatingWebhookConfiguration"
				extra = "  reinvocationPolicy: IfNeeded\n"
			}
			timeout := 5
			if n%5 == 0 {
				timeout = 31 // out of range
			}
			failure := "Fail"
			if n%3 == 0 {
				failure = "Ignore"
			}
			fmt.Fprintf(&b, `---
apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata:
  name: bench-%d
  labels: {app.kubernetes.io/name: hooks-%d}
webhooks:
- name: w%d.hooks.example.com
  failurePolicy: %s
  sideEffects: None
  admissionReviewVersions: ["v1", "v1beta1"]
  timeoutSeconds: %d
%s  clientConfig:
    service: {name: hooks-%d, namespace: hooks-%d, path: /validate}
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, hooks-%d]}
  matchConditions:
  - name: c1
    expression: %q
  rules:
  - apiGroups: [""]
    apiVersions: ["v1"]
    operations: ["CREATE", "UPDATE"]
    resources: ["pods", "configmaps"]
  - apiGroups: ["apps"]
    apiVersions: ["v1"]
    operations: ["*"]
    resources: ["deployments", "deployments/scale"]
    scope: Namespaced
`, kind, n, f, n, failure, timeout, extra, f, f, f, benchExpressions[n%len(benchExpressions)])
			docs++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bundle-%02d.yaml", f)), b.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir, docs
}

// BenchmarkBareDecode is the floor any YAML linter pays: decoding the same
// files into YAML node trees, on one core, with nothing else.
func BenchmarkBareDecode(b *testing.B) {
	dir, docs := writeBenchWorkload(b)
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			dec := yaml.NewDecoder(bytes.NewReader(data))
			for {
				var n yaml.Node
				if err := dec.Decode(&n); err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(docs*b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkLint is the whole run: read, parse, decode strictly, run every
// rule (CEL included), position and sort the findings.
func BenchmarkLint(b *testing.B) {
	dir, docs := writeBenchWorkload(b)
	// Run as the command line does.
	defer debug.SetGCPercent(debug.SetGCPercent(cli.GCPercent))
	// Warm the per-process caches (CEL environments) as a long run would.
	if _, err := source.Lint([]string{dir}, nil, "", lint.Options{}, source.Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := source.Lint([]string{dir}, nil, "", lint.Options{}, source.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Diagnostics) == 0 {
			b.Fatal("the workload has invalid documents; no findings means nothing ran")
		}
	}
	b.ReportMetric(float64(docs*b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkCorpus lints the real-world corpus when it is present beside
// the checkout (../shared/corpus).
func BenchmarkCorpus(b *testing.B) {
	dir := filepath.Join("..", "..", "shared", "corpus", "real")
	if _, err := os.Stat(dir); err != nil {
		b.Skip("corpus not present")
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := source.Lint([]string{dir}, nil, "", lint.Options{}, source.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAPIServerDryRun is the other reference: the real API server's
// verdict on the same webhook configurations (server-side dry-run create,
// strict field validation, eight requests in flight), when
// WEBHOOKLINT_BENCH_KUBECONFIG names a server to ask (hack/bench.sh starts
// one on loopback).
func BenchmarkAPIServerDryRun(b *testing.B) {
	kubeconfig := os.Getenv("WEBHOOKLINT_BENCH_KUBECONFIG")
	if kubeconfig == "" {
		b.Skip("WEBHOOKLINT_BENCH_KUBECONFIG not set")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 10000, 10000
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	dir, _ := writeBenchWorkload(b)
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			u := &unstructured.Unstructured{}
			if err := sigsyaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				b.Fatal(err)
			}
			if strings.HasSuffix(u.GetKind(), "WebhookConfiguration") {
				objs = append(objs, u)
			}
		}
	}
	gvr := func(kind string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: strings.ToLower(kind) + "s"}
	}
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}
	b.ResetTimer()
	for b.Loop() {
		next := make(chan *unstructured.Unstructured)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for u := range next {
					// Rejections are verdicts too; only transport errors matter.
					_, err := client.Resource(gvr(u.GetKind())).Create(context.Background(), u, opts)
					if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
						b.Error(err)
					}
				}
			})
		}
		for _, u := range objs {
			next <- u
		}
		close(next)
		wg.Wait()
	}
	b.ReportMetric(float64(len(objs)*b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkScaleConfigsOnePerFile is the scale workload of hack/bench.sh
// in process: n webhook configurations, one per file, for n = 375, 750,
// 1,500 and 3,000. Time and bytes allocated per configuration should stay
// flat as n grows (cost linear in the input).
func BenchmarkScaleConfigsOnePerFile(b *testing.B) {
	for _, n := range []int{375, 750, 1500, 3000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hook-%d}
webhooks:
- name: w.hook-%d.example.com
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: ["v1"]
  timeoutSeconds: %d
  clientConfig:
    service: {name: hooks-%d, namespace: hooks-%d, path: /validate}
  matchConditions:
  - {name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods, configmaps], scope: Namespaced}
`, i, i, 5+i%26, i%50, i%50)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("hook-%05d.yaml", i)), []byte(doc), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			defer debug.SetGCPercent(debug.SetGCPercent(cli.GCPercent))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := source.Lint([]string{dir}, nil, "", lint.Options{}, source.Options{})
				if err != nil || res.Configs != n {
					b.Fatalf("linted %v configurations, want %d (%v)", res, n, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(n*b.N), "µs/config")
		})
	}
}
