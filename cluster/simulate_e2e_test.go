package cluster

// End-to-end test of `webhooklint cluster simulate` against a real
// kube-apiserver (WEBHOOKLINT_E2E_KUBECONFIG, see e2e_test.go): loopback
// HTTPS webhook backends record every AdmissionReview the server sends,
// and for each scenario the webhooks the simulator says are called (and
// how often, with reinvocation) must be exactly those the server called.
//
// The server is shared with the other end-to-end tests, so every webhook
// here only intercepts namespaces carrying a label unique to this run
// (namespaces' own creation included), uses failurePolicy Ignore, and is
// deleted in t.Cleanup.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	regv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// simBackend is one HTTPS server standing in for every webhook backend:
// the path names the webhook.
type simBackend struct {
	srv      *httptest.Server
	caPEM    []byte
	patchers map[string]bool // webhooks whose response changes the object

	mu     sync.Mutex
	calls  map[string]int // webhook name → calls since reset
	seq    []string       // webhook names in call order since reset
	dry    map[string]bool
	labels map[string]map[string]string // webhook name → labels of the last object it got
}

func newSimBackend(t *testing.T) *simBackend {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhooklint-simulate-e2e-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	must(t, err)
	ca, err := x509.ParseCertificate(caDER)
	must(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	must(t, err)
	b := &simBackend{calls: map[string]int{}, dry: map[string]bool{}, patchers: map[string]bool{}, labels: map[string]map[string]string{},
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})}
	b.srv = httptest.NewUnstartedServer(http.HandlerFunc(b.serve))
	b.srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}
	b.srv.StartTLS()
	t.Cleanup(b.srv.Close)
	return b
}

// serve records the review and allows it; patchers also add an annotation
// named after themselves, which changes the object once.
func (b *simBackend) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	body, err := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err == nil {
		err = json.Unmarshal(body, &review)
	}
	if err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	b.calls[name]++
	b.seq = append(b.seq, name)
	b.dry[name] = review.Request.DryRun != nil && *review.Request.DryRun
	var meta metav1.PartialObjectMetadata
	if json.Unmarshal(review.Request.Object.Raw, &meta) == nil {
		b.labels[name] = meta.Labels
	}
	patch := b.patchers[name]
	b.mu.Unlock()
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	if patch {
		p := fmt.Sprintf(`[{"op":"add","path":"/metadata/annotations/changed-by-%s","value":"yes"}]`, strings.ReplaceAll(name, "/", "~1"))
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = []byte(p), &pt
	}
	review.Response, review.Request = resp, nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

func (b *simBackend) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls, b.dry, b.seq, b.labels = map[string]int{}, map[string]bool{}, nil, map[string]map[string]string{}
}

// sequence returns the calls to the given webhooks, in order.
func (b *simBackend) sequence(of map[string]bool) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, n := range b.seq {
		if of[n] {
			out = append(out, n)
		}
	}
	return out
}

func (b *simBackend) recorded() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]int{}
	for k, v := range b.calls {
		out[k] = v
	}
	return out
}

// simFixture holds the names of one run.
type simFixture struct {
	id, label      string
	nsA, nsB, nsC  string
	mutA, mutB     string
	val            string
	patcher, first string
}

func (f *simFixture) hook(short string) string { return short + "." + f.id + ".simulate.example.com" }

func (f *simFixture) crdGroup() string { return f.id + ".simulate.example.com" }

// createWidgetCRD registers a custom resource served as v1 and v2 (no
// conversion) and waits until discovery lists both versions.
func createWidgetCRD(t *testing.T, ctx context.Context, c kubernetes.Interface, dyn dynamic.Interface, f *simFixture) {
	t.Helper()
	version := func(name string, storage bool) map[string]any {
		return map[string]any{"name": name, "served": true, "storage": storage,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + f.crdGroup()},
		"spec": map[string]any{
			"group": f.crdGroup(), "scope": "Namespaced",
			"names":    map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{version("v1", true), version("v2", false)},
		},
	}}
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() { _ = crds.Delete(context.Background(), crd.GetName(), metav1.DeleteOptions{}) })
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err1 := c.Discovery().ServerResourcesForGroupVersion(f.crdGroup() + "/v1")
		_, err2 := c.Discovery().ServerResourcesForGroupVersion(f.crdGroup() + "/v2")
		if err1 == nil && err2 == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the custom resource is not served after 30s: %v, %v", err1, err2)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestE2ESimulate(t *testing.T) {
	c, cfg := e2e(t)
	ctx := e2eCtx(t)
	idb := make([]byte, 4)
	_, _ = rand.Read(idb)
	id := "sim" + hex.EncodeToString(idb)
	f := &simFixture{id: id, label: "webhooklint-simulate-e2e",
		nsA: id + "-a", nsB: id + "-b", nsC: id + "-new",
		mutA: id + "-m-a", mutB: id + "-m-b", val: id + "-v"}
	f.patcher, f.first = f.hook("patcher"), f.hook("first")
	backend := newSimBackend(t)
	backend.patchers[f.patcher] = true

	for ns, extra := range map[string]map[string]string{f.nsA: {"team": "a"}, f.nsB: {}} {
		labels := map[string]string{f.label: id}
		for k, v := range extra {
			labels[k] = v
		}
		_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}, metav1.CreateOptions{})
		must(t, err)
		name := ns
		t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
		// No controller manager runs: the ServiceAccount admission plugin
		// needs the default service account to admit pods.
		_, err = c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			must(t, err)
		}
	}
	dyn, err := dynamic.NewForConfig(cfg)
	must(t, err)
	createWidgetCRD(t, ctx, c, dyn, f)
	createSimConfigs(t, ctx, c, f, backend)

	dir := t.TempDir()
	writeObj := func(name string, o any) string {
		data, err := yaml.Marshal(o)
		must(t, err)
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, data, 0o600))
		return p
	}
	user := []string{"--user=e2e-admin", "--group=system:masters", "--group=system:authenticated"}
	pod := func(ns, name string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels, Annotations: map[string]string{"e2e": id}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
		}
	}
	pods := c.CoreV1().Pods(f.nsA)

	type scenario struct {
		name string
		args []string
		send func() error
	}
	webA := pod(f.nsA, "web-a", map[string]string{"app": "web"})
	dbB := pod(f.nsB, "db-b", map[string]string{"app": "db"})
	var stored *corev1.Pod
	badPod := pod(f.nsB, "web-bad", map[string]string{"cel-error": "yes"})
	scenarios := []scenario{
		{"create pod in team-a namespace (reinvocation)", append([]string{"--operation=CREATE", "--resource=pods", "--namespace=" + f.nsA,
			"--object=" + writeObj("web-a.yaml", webA), "--changes=" + f.mutA + "/" + f.patcher}, user...),
			func() error {
				var err error
				stored, err = pods.Create(ctx, webA, metav1.CreateOptions{})
				return err
			}},
		{"dry-run create in another namespace", append([]string{"--operation=CREATE", "--resource=pods", "--namespace=" + f.nsB,
			"--object=" + writeObj("db-b.yaml", dbB), "--dry-run", "--changes=" + f.patcher}, user...),
			func() error {
				_, err := c.CoreV1().Pods(f.nsB).Create(ctx, dbB, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				return err
			}},
		{"update pod labels", nil, nil}, // filled below: needs the stored object
		{"update pod status", nil, nil},
		{"exec into pod", append([]string{"--operation=CONNECT", "--resource=pods/exec", "--namespace=" + f.nsA, "--name=web-a"}, user...),
			func() error {
				// The server admits the request, then fails: the pod has no node.
				_ = c.CoreV1().RESTClient().Post().Namespace(f.nsA).Resource("pods").Name("web-a").SubResource("exec").
					Param("command", "true").Param("stdout", "true").Do(ctx).Error()
				return nil
			}},
		{"delete pod", nil, nil},
		{"create hpa through autoscaling/v2 (matchPolicy Equivalent)", append([]string{"--operation=CREATE",
			"--resource=horizontalpodautoscalers.autoscaling", "--namespace=" + f.nsA, "--name=hpa"}, user...),
			func() error {
				minReplicas := int32(1)
				_, err := c.AutoscalingV2().HorizontalPodAutoscalers(f.nsA).Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
					ObjectMeta: metav1.ObjectMeta{Name: "hpa"},
					Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: &minReplicas, MaxReplicas: 3,
						ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
				}, metav1.CreateOptions{})
				return err
			}},
		{"create core event (stored with events.k8s.io)", append([]string{"--operation=CREATE", "--resource=events", "--namespace=" + f.nsB, "--name=ev"}, user...),
			func() error {
				_, err := c.CoreV1().Events(f.nsB).Create(ctx, &corev1.Event{
					ObjectMeta:     metav1.ObjectMeta{Name: "ev"},
					InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: f.nsB, Name: "db-b"},
					Reason:         "Test", Message: "simulate e2e", Type: corev1.EventTypeNormal,
				}, metav1.CreateOptions{})
				return err
			}},
		{"create namespace (its own labels)", nil, nil},
		{"create custom resource as v2 (matchPolicy Equivalent through discovery)", append([]string{"--operation=CREATE",
			"--resource=widgets." + f.crdGroup(), "--api-version=v2", "--kind=Widget", "--namespace=" + f.nsA, "--name=w"}, user...),
			func() error {
				w := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": f.crdGroup() + "/v2", "kind": "Widget", "metadata": map[string]any{"name": "w"}}}
				_, err := dyn.Resource(schema.GroupVersionResource{Group: f.crdGroup(), Version: "v2", Resource: "widgets"}).
					Namespace(f.nsA).Create(ctx, w, metav1.CreateOptions{})
				return err
			}},
		{"delete pod with finalizer (only marked)", nil, nil},
		{"matchCondition error under Fail: no validating webhook is called", append([]string{"--operation=CREATE", "--resource=pods",
			"--namespace=" + f.nsB, "--object=" + writeObj("bad.yaml", badPod), "--changes=" + f.patcher}, user...),
			func() error {
				_, err := c.CoreV1().Pods(f.nsB).Create(ctx, badPod, metav1.CreateOptions{})
				return err
			}},
	}
	newNS := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: f.nsC, Labels: map[string]string{f.label: id, "team": "a"}}}
	scenarios[8].args = append([]string{"--operation=CREATE", "--resource=namespaces", "--object=" + writeObj("ns.yaml", newNS)}, user...)
	scenarios[8].send = func() error {
		_, err := c.CoreV1().Namespaces().Create(ctx, newNS, metav1.CreateOptions{})
		if err == nil {
			t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), f.nsC, metav1.DeleteOptions{}) })
		}
		return err
	}

	for i, sc := range scenarios {
		if stored != nil && strings.Contains(sc.name, " pod") {
			// A write whose cached copy of the object is stale is retried,
			// admission included: let the watch cache catch up first.
			waitForCache(t, ctx, pods, stored)
		}
		switch sc.name {
		case "update pod labels":
			old := stored.DeepCopy()
			updated := stored.DeepCopy()
			updated.Labels["tier"] = "front"
			sc.args = append([]string{"--operation=UPDATE", "--resource=pods", "--namespace=" + f.nsA,
				"--object=" + writeObj("upd.yaml", withKind(updated)), "--old-object=" + writeObj("old.yaml", withKind(old))}, user...)
			sc.send = func() error {
				var err error
				stored, err = pods.Update(ctx, updated, metav1.UpdateOptions{})
				return err
			}
		case "delete pod":
			sc.args = append([]string{"--operation=DELETE", "--resource=pods", "--namespace=" + f.nsA,
				"--old-object=" + writeObj("del.yaml", withKind(stored))}, user...)
			sc.send = func() error {
				err := pods.Delete(ctx, stored.Name, metav1.DeleteOptions{})
				stored = nil // gone
				return err
			}
		case "delete pod with finalizer (only marked)":
			fin := pod(f.nsA, "web-fin", map[string]string{"app": "web"})
			fin.Finalizers = []string{"example.com/keep"}
			created, err := pods.Create(ctx, fin, metav1.CreateOptions{})
			must(t, err)
			t.Cleanup(func() {
				// Let the marked pod go: drop the finalizer.
				if p, err := pods.Get(context.Background(), "web-fin", metav1.GetOptions{}); err == nil {
					p.Finalizers = nil
					_, _ = pods.Update(context.Background(), p, metav1.UpdateOptions{})
				}
			})
			waitForCache(t, ctx, pods, created)
			sc.args = append([]string{"--operation=DELETE", "--resource=pods", "--namespace=" + f.nsA,
				"--old-object=" + writeObj("fin.yaml", withKind(created))}, user...)
			sc.send = func() error { return pods.Delete(ctx, "web-fin", metav1.DeleteOptions{}) }
		case "update pod status":
			updated := stored.DeepCopy()
			updated.Status.Message = "simulated"
			sc.args = append([]string{"--operation=UPDATE", "--resource=pods/status", "--namespace=" + f.nsA,
				"--object=" + writeObj("st.yaml", withKind(updated)), "--old-object=" + writeObj("st-old.yaml", withKind(stored))}, user...)
			sc.send = func() error {
				var err error
				stored, err = pods.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
				return err
			}
		}
		t.Run(fmt.Sprintf("%d %s", i, sc.name), func(t *testing.T) {
			want, p, dump := predictCalls(t, ctx, sc.args, cfg, id)
			passes, rejected := p.passes, p.rejected
			if len(want) == 0 {
				t.Errorf("the simulation predicts no call: the scenario tests nothing\n%s", dump)
			}
			backend.reset()
			err := sc.send()
			switch {
			case rejected && err == nil:
				t.Errorf("the simulation says the server rejects the request, but it was admitted\n%s", dump)
			case !rejected && err != nil:
				t.Fatalf("sending the request: %v", err)
			case rejected:
				t.Logf("rejected as predicted: %v", err)
			}
			got := backend.recorded()
			t.Logf("the API server called %v", sortedCalls(got))
			if !callsMatch(got, want, passes, slices.Contains(sc.args, "--operation=DELETE")) {
				t.Errorf("the API server called %v; the simulation predicted %v\n%s", sortedCalls(got), sortedCalls(want), dump)
			}
			// Mutating webhooks run one after the other: the order is the
			// prediction's (configurations by name, then the second round).
			if passes == 1 {
				got := backend.sequence(p.mutating)
				t.Logf("mutating order %v", got)
				if !slices.Equal(got, p.mutatingOrder) {
					t.Errorf("mutating calls in order %v; the simulation predicted %v", got, p.mutatingOrder)
				}
			}
			if slices.Contains(sc.args, "--dry-run") {
				for name := range got {
					if !backend.dry[name] {
						t.Errorf("%s: request.dryRun not set", name)
					}
				}
			}
		})
	}
}

// waitForCache polls until a read served by the watch cache
// (resourceVersion "0") returns p's resourceVersion.
func waitForCache(t *testing.T, ctx context.Context, pods interface {
	Get(context.Context, string, metav1.GetOptions) (*corev1.Pod, error)
}, p *corev1.Pod) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := pods.Get(ctx, p.Name, metav1.GetOptions{ResourceVersion: "0"})
		if err == nil && got.ResourceVersion == p.ResourceVersion {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch cache did not reach resourceVersion %s of pod %s (err %v)", p.ResourceVersion, p.Name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func withKind(p *corev1.Pod) *corev1.Pod {
	p = p.DeepCopy()
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	p.ManagedFields = nil
	return p
}

// predictCalls runs `webhooklint cluster simulate --format json` and counts
// the calls it predicts for this run's webhooks; every one of them must be
// decided (no "maybe").
// prediction is what cluster simulate says beyond the call counts.
type prediction struct {
	passes        int
	rejected      bool
	mutating      map[string]bool // every mutating webhook of the run
	mutatingOrder []string        // predicted mutating calls, in order
}

func predictCalls(t *testing.T, ctx context.Context, args []string, cfg *rest.Config, id string) (map[string]int, prediction, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"simulate", "--format=json"}, args...), &stdout, &stderr, cfg)
	if code != exitClean && code != exitFindings {
		t.Fatalf("cluster simulate %v: exit %d: %s", args, code, stderr.String())
	}
	var out struct {
		Mutating, Validating []struct {
			Configuration, Webhook, Decision, Reason string
		}
		Reinvocations   []struct{ Configuration, Webhook, Decision, Reason string }
		AdmissionPasses int
		RejectedAt      string
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("cluster simulate output: %v\n%s", err, stdout.String())
	}
	want := map[string]int{}
	mine := func(config string) bool { return strings.HasPrefix(config, id+"-") }
	for _, list := range [][]struct{ Configuration, Webhook, Decision, Reason string }{out.Mutating, out.Reinvocations, out.Validating} {
		for _, c := range list {
			if !mine(c.Configuration) {
				continue
			}
			switch c.Decision {
			case "called":
				want[c.Webhook]++
			case "maybe called":
				t.Errorf("%s/%s is only maybe called (%s): the scenario must give every input", c.Configuration, c.Webhook, c.Reason)
			}
		}
	}
	if out.AdmissionPasses == 0 {
		t.Errorf("the number of admission passes is unknown: the scenario must give every input")
	}
	for k := range want {
		want[k] *= out.AdmissionPasses
	}
	p := prediction{passes: out.AdmissionPasses, rejected: out.RejectedAt != "", mutating: map[string]bool{}}
	for _, list := range [][]struct{ Configuration, Webhook, Decision, Reason string }{out.Mutating, out.Reinvocations} {
		for _, c := range list {
			if mine(c.Configuration) {
				p.mutating[c.Webhook] = true
				if c.Decision == "called" {
					p.mutatingOrder = append(p.mutatingOrder, c.Webhook)
				}
			}
		}
	}
	return want, p, stdout.String()
}

// callsMatch compares the calls the server made with the prediction: the
// same webhooks, each called as often as predicted. The one tolerance is a
// storage retry on DELETE: when the watch cache has not yet seen the
// deletion mark, the removal is retried and admitted once more
// (etcd3 store conditionalDelete), which no simulation can foresee.
func callsMatch(got, want map[string]int, passes int, isDelete bool) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g := got[k]
		retried := isDelete && passes > 0 && g == w+w/passes
		if g != w && !retried {
			return false
		}
	}
	return true
}

func sortedCalls(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s×%d", k, v))
	}
	sort.Strings(out)
	return out
}

// createSimConfigs registers this run's webhooks; each only intercepts
// namespaces labeled with the run's id.
func createSimConfigs(t *testing.T, ctx context.Context, c kubernetes.Interface, f *simFixture, b *simBackend) {
	t.Helper()
	ignore := regv1.Ignore
	none := regv1.SideEffectClassNone
	noneOnDry := regv1.SideEffectClassNoneOnDryRun
	exact := regv1.Exact
	ifNeeded := regv1.IfNeededReinvocationPolicy
	mine := func(extra map[string]string) *metav1.LabelSelector {
		l := map[string]string{f.label: f.id}
		for k, v := range extra {
			l[k] = v
		}
		return &metav1.LabelSelector{MatchLabels: l}
	}
	rule := func(group, version string, resources []string, ops ...regv1.OperationType) []regv1.RuleWithOperations {
		return []regv1.RuleWithOperations{{Operations: ops, Rule: regv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: resources}}}
	}
	client := func(name string) regv1.WebhookClientConfig {
		url := b.srv.URL + "/" + name
		return regv1.WebhookClientConfig{URL: &url, CABundle: b.caPEM}
	}
	timeout := int32(5)
	type hook struct {
		short       string
		rules       []regv1.RuleWithOperations
		ns, obj     *metav1.LabelSelector
		conds       []regv1.MatchCondition
		sideEffects *regv1.SideEffectClass
		matchPolicy *regv1.MatchPolicyType
		reinvoke    *regv1.ReinvocationPolicyType
		failClosed  bool
	}
	pods := []string{"pods"}
	crud := []regv1.OperationType{regv1.Create, regv1.Update, regv1.Delete}
	mutA := []hook{
		{short: "first", rules: rule("", "v1", pods, regv1.Create), reinvoke: &ifNeeded},
		{short: "patcher", rules: rule("", "v1", pods, regv1.Create)},
	}
	mutB := []hook{
		{short: "team-a", rules: rule("", "v1", pods, regv1.Create, regv1.Update), ns: mine(map[string]string{"team": "a"})},
		{short: "web-objects", rules: rule("", "v1", pods, crud...), obj: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, reinvoke: &ifNeeded},
	}
	val := []hook{
		{short: "all-pods", rules: rule("", "v1", []string{"pods", "pods/status"}, crud...), sideEffects: &noneOnDry},
		{short: "not-admin", rules: rule("", "v1", pods, regv1.Create),
			conds: []regv1.MatchCondition{{Name: "not-admin", Expression: `request.userInfo.username != "e2e-admin"`}}},
		{short: "web-names", rules: rule("", "v1", pods, crud...),
			conds: []regv1.MatchCondition{{Name: "web", Expression: `(object != null ? object : oldObject).metadata.name.startsWith("web")`}}},
		{short: "label-change", rules: rule("", "v1", pods, regv1.Update),
			conds: []regv1.MatchCondition{{Name: "tier-added", Expression: `!has(oldObject.metadata.labels.tier) && has(object.metadata.labels.tier)`}}},
		{short: "broken", rules: rule("", "v1", pods, regv1.Create),
			conds: []regv1.MatchCondition{{Name: "wrong-path", Expression: `object.spec.template.spec.containers.size() > 0`}}},
		// Fails closed, but only for pods labeled cel-error=yes in this
		// run's namespaces: its matchCondition cannot evaluate on pods.
		{short: "broken-fail", rules: rule("", "v1", pods, regv1.Create), failClosed: true,
			obj:   &metav1.LabelSelector{MatchLabels: map[string]string{"cel-error": "yes"}},
			conds: []regv1.MatchCondition{{Name: "wrong-path", Expression: `object.spec.template.spec.containers.size() > 0`}}},
		{short: "exec", rules: rule("", "v1", []string{"pods/exec", "pods/attach"}, regv1.Connect)},
		{short: "exec-selected", rules: rule("", "v1", []string{"pods/exec"}, regv1.Connect),
			obj: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "debug", Operator: metav1.LabelSelectorOpDoesNotExist}}}},
		{short: "hpa-equivalent", rules: rule("autoscaling", "v1", []string{"horizontalpodautoscalers"}, regv1.Create)},
		{short: "hpa-exact", rules: rule("autoscaling", "v1", []string{"horizontalpodautoscalers"}, regv1.Create), matchPolicy: &exact},
		{short: "events", rules: rule("events.k8s.io", "v1", []string{"events"}, regv1.Create)},
		// A custom resource served as v1 and v2: Equivalent matches v2 requests.
		{short: "widgets-equivalent", rules: rule(f.crdGroup(), "v1", []string{"widgets"}, regv1.Create)},
		{short: "widgets-exact", rules: rule(f.crdGroup(), "v1", []string{"widgets"}, regv1.Create), matchPolicy: &exact},
		{short: "namespaces", rules: rule("", "v1", []string{"namespaces"}, regv1.Create), ns: mine(map[string]string{"team": "a"})},
	}
	fill := func(h hook) (string, []regv1.RuleWithOperations, *metav1.LabelSelector, *regv1.SideEffectClass) {
		ns := h.ns
		if ns == nil {
			ns = mine(nil)
		}
		se := h.sideEffects
		if se == nil {
			se = &none
		}
		return f.hook(h.short), h.rules, ns, se
	}
	for _, cfg := range []struct {
		name  string
		hooks []hook
	}{{f.mutB, mutB}, {f.mutA, mutA}} { // created out of order: the server sorts by name
		m := &regv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: cfg.name}}
		for _, h := range cfg.hooks {
			name, rules, ns, se := fill(h)
			m.Webhooks = append(m.Webhooks, regv1.MutatingWebhook{
				Name: name, ClientConfig: client(name), Rules: rules, NamespaceSelector: ns, ObjectSelector: h.obj,
				MatchConditions: h.conds, SideEffects: se, MatchPolicy: h.matchPolicy, ReinvocationPolicy: h.reinvoke,
				FailurePolicy: &ignore, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"},
			})
		}
		_, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, m, metav1.CreateOptions{})
		must(t, err)
		name := cfg.name
		t.Cleanup(func() {
			_ = c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	v := &regv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: f.val}}
	fail := regv1.Fail
	for _, h := range val {
		name, rules, ns, se := fill(h)
		policy := &ignore
		if h.failClosed {
			policy = &fail
		}
		v.Webhooks = append(v.Webhooks, regv1.ValidatingWebhook{
			Name: name, ClientConfig: client(name), Rules: rules, NamespaceSelector: ns, ObjectSelector: h.obj,
			MatchConditions: h.conds, SideEffects: se, MatchPolicy: h.matchPolicy,
			FailurePolicy: policy, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"},
		})
	}
	_, err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, v, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() {
		_ = c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(context.Background(), f.val, metav1.DeleteOptions{})
	})
	// The server's webhook configuration cache updates asynchronously:
	// wait until a probe pod in the run's namespace reaches a webhook.
	waitForWebhooks(t, ctx, c, f, b)
}

// waitForWebhooks dry-run creates a pod until the backend sees it.
func waitForWebhooks(t *testing.T, ctx context.Context, c kubernetes.Interface, f *simFixture, b *simBackend) {
	t.Helper()
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Annotations: map[string]string{"e2e": f.id}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b.reset()
		_, _ = c.CoreV1().Pods(f.nsB).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		got := b.recorded()
		if got[f.hook("all-pods")] > 0 && got[f.first] > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks not active after 30s (backend saw %v)", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
