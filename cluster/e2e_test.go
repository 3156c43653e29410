package cluster

// End-to-end tests against a real kube-apiserver and etcd. They run only
// when WEBHOOKLINT_E2E_KUBECONFIG names the kubeconfig of a disposable
// server (hack/e2e-cluster.sh starts one and sets it, together with
// WEBHOOKLINT_E2E_ETCD, the etcd endpoint the tests compact).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/rules"
)

func e2e(t *testing.T) (kubernetes.Interface, *rest.Config) {
	t.Helper()
	path := os.Getenv("WEBHOOKLINT_E2E_KUBECONFIG")
	if path == "" {
		t.Skip("WEBHOOKLINT_E2E_KUBECONFIG not set (run hack/e2e-cluster.sh)")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

func e2eCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// webhooks returns one webhook whose rule names group "app" (not served:
// an unserved-resources finding) when bad, or "apps" when not.
func webhookRules(bad bool) []admissionv1.RuleWithOperations {
	group := "apps"
	if bad {
		group = "app"
	}
	return []admissionv1.RuleWithOperations{{
		Operations: []admissionv1.OperationType{admissionv1.Create},
		Rule:       admissionv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
	}}
}

func validating(name string, bad bool) *admissionv1.ValidatingWebhookConfiguration {
	none := admissionv1.SideEffectClassNone
	url := "https://webhook.example.com/validate"
	return &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: "check.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: &url},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, Rules: webhookRules(bad),
		}},
	}
}

func mutating(name string, bad bool) *admissionv1.MutatingWebhookConfiguration {
	none := admissionv1.SideEffectClassNone
	url := "https://webhook.example.com/mutate"
	return &admissionv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionv1.MutatingWebhook{{
			Name: "mutate.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: &url},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, Rules: webhookRules(bad),
		}},
	}
}

// objects creates and later deletes configurations.
type objects struct {
	t *testing.T
	c kubernetes.Interface
}

func (o objects) validating(ctx context.Context, name string, bad bool) *admissionv1.ValidatingWebhookConfiguration {
	api := o.c.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	v, err := api.Create(ctx, validating(name, bad), metav1.CreateOptions{})
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() { _ = api.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return v
}

func (o objects) mutating(ctx context.Context, name string, bad bool) *admissionv1.MutatingWebhookConfiguration {
	api := o.c.AdmissionregistrationV1().MutatingWebhookConfigurations()
	m, err := api.Create(ctx, mutating(name, bad), metav1.CreateOptions{})
	if err != nil {
		o.t.Fatal(err)
	}
	o.t.Cleanup(func() { _ = api.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return m
}

// compact makes etcd forget every revision before the current one, and
// returns that revision.
func compact(t *testing.T, ctx context.Context, o objects) string {
	t.Helper()
	endpoint := os.Getenv("WEBHOOKLINT_E2E_ETCD")
	if endpoint == "" {
		t.Skip("WEBHOOKLINT_E2E_ETCD not set")
	}
	// A write moves the revision past everything read so far.
	bump := o.mutating(ctx, fmt.Sprintf("zz-bump-%d", time.Now().UnixNano()), false)
	cmd := exec.CommandContext(ctx, "etcdctl", "--endpoints", endpoint, "compact", bump.ResourceVersion)
	cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("etcdctl compact: %v: %s", err, out)
	}
	return bump.ResourceVersion
}

func names(s *Snapshot, prefix string) []string {
	var out []string
	for _, c := range s.Configs {
		if strings.HasPrefix(c.Meta.Name, prefix) {
			out = append(out, c.Meta.Name)
		}
	}
	return out
}

func TestE2EPagedList(t *testing.T) {
	c, cfg := e2e(t)
	ctx := e2eCtx(t)
	o := objects{t, c}
	for i := range 5 {
		o.validating(ctx, fmt.Sprintf("page-%d", i), i%2 == 0)
		o.mutating(ctx, fmt.Sprintf("page-%d", i), i%2 == 0)
	}
	for _, k := range kindsOf(c) {
		snap, err := list(ctx, k, ListOptions{ChunkSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		want := (len(snap.Configs) + 1) / 2
		if got := names(snap, "page-"); len(got) != 5 || snap.Pages != want || snap.Pages < 3 || snap.ResourceVersion == "" {
			t.Errorf("%s: pages=%d (want %d) rv=%q names=%v", k.Resource, snap.Pages, want, snap.ResourceVersion, got)
		}
	}

	// The command: three bad configurations of each kind, found across pages.
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--chunk-size=2", "--format=json"}, &stdout, &stderr, cfg)
	var out struct {
		Diagnostics []struct {
			Rule, Path string
			Object     struct{ Kind, Name string }
		}
		ResourceVersions map[string]string
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("exit %d, %v: %s %s", code, err, stdout.String(), stderr.String())
	}
	found := map[string]int{}
	for _, d := range out.Diagnostics {
		if d.Rule == "unserved-resources" && strings.HasPrefix(d.Object.Name, "page-") {
			found[d.Object.Kind+"/"+d.Object.Name+" "+d.Path]++
		}
	}
	for _, kind := range []string{rules.Validating, rules.Mutating} {
		for _, i := range []int{0, 2, 4} {
			if key := fmt.Sprintf("%s/page-%d webhooks[0].rules[0].apiGroups[0]", kind, i); found[key] != 1 {
				t.Errorf("%s reported %d times", key, found[key])
			}
		}
	}
	// One resourceVersion per kind read: the two configuration kinds and
	// the four policy kinds the 1.37 server serves.
	if len(found) != 6 || code != exitFindings || len(out.ResourceVersions) != 6 {
		t.Errorf("exit %d, findings %v, resourceVersions %v", code, found, out.ResourceVersions)
	}

	// The configuration file of file linting applies: a disabled rule is silent.
	cfgFile := t.TempDir() + "/.webhooklint.yaml"
	must(t, os.WriteFile(cfgFile, []byte("rules:\n  unserved-resources: false\n"), 0o600))
	stdout.Reset()
	stderr.Reset()
	code = run(ctx, []string{"--config=" + cfgFile, "--format=json"}, &stdout, &stderr, cfg)
	if strings.Contains(stdout.String(), "unserved-resources") || code == exitFailure || code == exitUsage {
		t.Errorf("disabled rule still reported (exit %d): %s %s", code, stdout.String(), stderr.String())
	}

	// resourceVersion 0: any version, said to be possibly stale.
	stdout.Reset()
	stderr.Reset()
	run(ctx, []string{"--resource-version=0", "--no-live"}, &stdout, &stderr, cfg)
	if !strings.Contains(stderr.String(), "may be stale") {
		t.Errorf("no staleness note for resourceVersion 0: %s", stderr.String())
	}
}

func TestE2EGoneAndExpiredContinue(t *testing.T) {
	c, cfg := e2e(t)
	ctx := e2eCtx(t)
	o := objects{t, c}
	first := o.mutating(ctx, "gone-0", false)
	for i := 1; i < 4; i++ {
		o.mutating(ctx, fmt.Sprintf("gone-%d", i), false)
	}
	mutatingKind := kindsOf(c)[1]

	// A list whose continue token expires (etcd compacted past the list's
	// version after the first page) restarts and returns a whole snapshot.
	compacted := false
	snap, err := list(ctx, mutatingKind, ListOptions{ChunkSize: 1, afterPage: func(_ string, page int) {
		if page == 1 && !compacted {
			compacted = true
			compact(t, ctx, o)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Restarts != 1 || len(names(snap, "gone-")) != 4 || snap.Inconsistent {
		t.Errorf("restarts=%d inconsistent=%v names=%v", snap.Restarts, snap.Inconsistent, names(snap, "gone-"))
	}

	// With --allow-inconsistent-continue it goes on with the 410's token.
	compacted = false
	snap, err = list(ctx, mutatingKind, ListOptions{ChunkSize: 1, AllowInconsistent: true, afterPage: func(_ string, page int) {
		if page == 1 && !compacted {
			compacted = true
			compact(t, ctx, o)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Restarts != 0 || !snap.Inconsistent || len(names(snap, "gone-")) != 4 {
		t.Errorf("restarts=%d inconsistent=%v names=%v", snap.Restarts, snap.Inconsistent, names(snap, "gone-"))
	}

	// An exact read of a compacted version is a clear 410.
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--resource-version=" + first.ResourceVersion, "--resource-version-match=Exact", "--no-live"}, &stdout, &stderr, cfg)
	if code != exitFailure || !strings.Contains(stderr.String(), "410 Gone: that version is no longer available") {
		t.Errorf("exit %d, stderr %s", code, stderr.String())
	}
}

// recorder collects watch output and lets a test wait for it.
type recorder struct {
	mu      sync.Mutex
	changes []Change
	signal  chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1)} }

func (r *recorder) sink(c Change) {
	r.mu.Lock()
	r.changes = append(r.changes, c)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// count tallies finding events of rule unserved-resources per
// "type kind/name", and object events per "type kind/name".
func (r *recorder) count(prefix string) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for _, c := range r.changes {
		if c.Object == nil || !strings.HasPrefix(c.Object.Name, prefix) {
			continue
		}
		if c.Diagnostic != nil && c.Diagnostic.Rule != "unserved-resources" {
			continue
		}
		out[string(c.Type)+" "+objectKey(c.Object)]++
	}
	return out
}

func (r *recorder) has(typ ChangeType, text string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.changes {
		if c.Type == typ && strings.Contains(c.Reason, text) {
			return true
		}
	}
	return false
}

// waitFor waits until cond holds for the recorded changes.
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-r.signal:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			var lines []string
			for _, c := range r.changes {
				d := ""
				if c.Diagnostic != nil {
					d = c.Diagnostic.Rule + " " + c.Diagnostic.Path
				}
				lines = append(lines, fmt.Sprintf("%s %s %s %s", c.Type, objectKey(c.Object), d, c.Reason))
			}
			t.Fatalf("timed out waiting for %s; got:\n%s", what, strings.Join(lines, "\n"))
		}
	}
}

func startWatcher(t *testing.T, w *Watcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := w.Run(ctx)
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watcher: %v", err)
		}
	})
}

func TestE2EWatch(t *testing.T) {
	c, _ := e2e(t)
	for _, mode := range []StreamMode{StreamAuto, StreamNever} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := e2eCtx(t)
			o := objects{t, c}
			prefix := "watch-" + string(mode) + "-"
			rec := newRecorder()
			startWatcher(t, &Watcher{Client: c, Options: Options{Stream: mode, Live: true, List: ListOptions{ChunkSize: 2}}, Sink: rec.sink})
			rec.waitFor(t, "sync", func() bool { return rec.has(Synced, "") })

			v := o.validating(ctx, prefix+"v", true)
			o.mutating(ctx, prefix+"m", true)
			rec.waitFor(t, "both findings", func() bool {
				n := rec.count(prefix)
				return n["found ValidatingWebhookConfiguration/"+prefix+"v"] == 1 && n["found MutatingWebhookConfiguration/"+prefix+"m"] == 1
			})

			// Modify: the finding is resolved.
			v.Webhooks[0].Rules = webhookRules(false)
			if _, err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			// Delete: the configuration and its finding go.
			if err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, prefix+"m", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			rec.waitFor(t, "resolution and deletion", func() bool {
				n := rec.count(prefix)
				return n["resolved ValidatingWebhookConfiguration/"+prefix+"v"] == 1 && n["deleted MutatingWebhookConfiguration/"+prefix+"m"] == 1 &&
					n["resolved MutatingWebhookConfiguration/"+prefix+"m"] == 1
			})
			want := map[string]int{
				"added ValidatingWebhookConfiguration/" + prefix + "v":    1,
				"found ValidatingWebhookConfiguration/" + prefix + "v":    1,
				"changed ValidatingWebhookConfiguration/" + prefix + "v":  1,
				"resolved ValidatingWebhookConfiguration/" + prefix + "v": 1,
				"added MutatingWebhookConfiguration/" + prefix + "m":      1,
				"found MutatingWebhookConfiguration/" + prefix + "m":      1,
				"deleted MutatingWebhookConfiguration/" + prefix + "m":    1,
				"resolved MutatingWebhookConfiguration/" + prefix + "m":   1,
			}
			if got := rec.count(prefix); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("events:\n got %v\nwant %v", got, want)
			}
			// mutatingwebhookconfigurations are served by etcd directly
			// (no watch cache), which streams the initial state even with
			// etcd 3.4: the streaming form really is exercised.
			if mode == StreamAuto && rec.has(Note, "mutatingwebhookconfigurations: no streaming list") {
				t.Error("the streaming list of mutatingwebhookconfigurations fell back")
			}
		})
	}
}

func TestE2EWatchRelistAfterGone(t *testing.T) {
	c, _ := e2e(t)
	// The relist is a list in mode never, a streaming list in mode auto.
	for _, mode := range []StreamMode{StreamNever, StreamAuto} {
		t.Run(string(mode), func(t *testing.T) { testRelistAfterGone(t, c, mode) })
	}
}

func testRelistAfterGone(t *testing.T, c kubernetes.Interface, mode StreamMode) {
	ctx := e2eCtx(t)
	o := objects{t, c}
	prefix := "relist-" + string(mode) + "-"
	a := o.mutating(ctx, prefix+"a", true)
	o.mutating(ctx, prefix+"b", true)
	o.mutating(ctx, prefix+"d", true)
	mutatingKind := kindsOf(c)[1]
	known, err := list(ctx, mutatingKind, ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// While nobody watches: a is fixed, b deleted, c created; then etcd
	// forgets the revisions in between.
	a.Webhooks[0].Rules = webhookRules(false)
	if _, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, prefix+"b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	o.mutating(ctx, prefix+"c", true)
	compact(t, ctx, o)

	// Resume from the old state and version: the watch gets 410 Gone, the
	// watcher relists and reports exactly what changed.
	rec := newRecorder()
	startWatcher(t, &Watcher{Client: c, Options: Options{Stream: mode, Live: true}, Sink: rec.sink,
		seeds: map[string]*Snapshot{"mutatingwebhookconfigurations": known}})
	rec.waitFor(t, "relist", func() bool {
		n := rec.count(prefix)
		return rec.has(Note, "410") && n["found MutatingWebhookConfiguration/"+prefix+"c"] == 1
	})
	want := map[string]int{
		"added MutatingWebhookConfiguration/" + prefix + "a":    1,
		"found MutatingWebhookConfiguration/" + prefix + "a":    1,
		"changed MutatingWebhookConfiguration/" + prefix + "a":  1,
		"resolved MutatingWebhookConfiguration/" + prefix + "a": 1,
		"added MutatingWebhookConfiguration/" + prefix + "b":    1,
		"found MutatingWebhookConfiguration/" + prefix + "b":    1,
		"deleted MutatingWebhookConfiguration/" + prefix + "b":  1,
		"resolved MutatingWebhookConfiguration/" + prefix + "b": 1,
		"added MutatingWebhookConfiguration/" + prefix + "c":    1,
		"found MutatingWebhookConfiguration/" + prefix + "c":    1,
		"added MutatingWebhookConfiguration/" + prefix + "d":    1,
		"found MutatingWebhookConfiguration/" + prefix + "d":    1,
	}
	// Give a duplicate the chance to show up before judging.
	time.Sleep(time.Second)
	if got := rec.count(prefix); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events:\n got %v\nwant %v", got, want)
	}
}

func TestE2ERBAC(t *testing.T) {
	c, admin := e2e(t)
	ctx := e2eCtx(t)
	applyDeployRBAC(t, ctx, c)

	exp := int64(600)
	tok, err := c.CoreV1().ServiceAccounts("webhooklint").CreateToken(ctx, "webhooklint",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sa := rest.AnonymousClientConfig(admin)
	sa.BearerToken = tok.Status.Token
	saClient := kubernetes.NewForConfigOrDie(sa)

	// The identity really is restricted...
	if _, err := saClient.CoreV1().Secrets("").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing secrets as the service account: %v, want Forbidden", err)
	}
	o := objects{t, c}
	o.validating(ctx, "rbac-v", true)

	// ...and suffices for a full run with live checks, once and watching.
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"--chunk-size=1"}, &stdout, &stderr, sa); code != exitFindings ||
		strings.Contains(stderr.String(), "live checks without") || !strings.Contains(stdout.String(), `of ValidatingWebhookConfiguration "rbac-v":`) {
		t.Errorf("once: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(ctx, []string{"--watch", "--timeout=5s", "--live-refresh=1s"}, &stdout, &stderr, sa); code != exitFindings ||
		strings.Contains(stdout.String(), "forbidden") || !strings.Contains(stdout.String(), "# synced") {
		t.Errorf("watch: exit %d\nstdout %s\nstderr %s", code, stdout.String(), stderr.String())
	}
}

// applyDeployRBAC creates the Namespace, ServiceAccount, ClusterRole and
// ClusterRoleBinding of deploy/rbac.yaml, exactly as shipped.
func applyDeployRBAC(t *testing.T, ctx context.Context, c kubernetes.Interface) {
	t.Helper()
	data, err := os.ReadFile("../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ignoreExists := func(err error) {
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "Namespace":
			var o corev1.Namespace
			must(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = c.CoreV1().Namespaces().Create(ctx, &o, metav1.CreateOptions{})
		case "ServiceAccount":
			var o corev1.ServiceAccount
			must(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = c.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, &o, metav1.CreateOptions{})
		case "ClusterRole":
			var o rbacv1.ClusterRole
			must(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = c.RbacV1().ClusterRoles().Create(ctx, &o, metav1.CreateOptions{})
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			must(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, &o, metav1.CreateOptions{})
		default:
			t.Fatalf("unexpected kind %q in deploy/rbac.yaml", meta.Kind)
		}
		ignoreExists(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestE2ELiveChecks(t *testing.T) {
	c, _ := e2e(t)
	ctx := e2eCtx(t)
	const ns = "live-e2e"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "checker"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(9443)}}},
	}
	if _, err := c.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.CoreV1().Services(ns).Delete(context.Background(), "checker", metav1.DeleteOptions{}) })

	withService := func(name string, port int32) *admissionv1.ValidatingWebhookConfiguration {
		v := validating(name, false)
		v.Webhooks[0].ClientConfig = admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: ns, Name: "checker", Port: &port}}
		v.Webhooks[0].Rules[0].APIGroups, v.Webhooks[0].Rules[0].Resources = []string{""}, []string{"pods"}
		return v
	}
	api := c.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	for _, v := range []*admissionv1.ValidatingWebhookConfiguration{withService("live-port", 8443), withService("live-ready", 443)} {
		if _, err := api.Create(ctx, v, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = api.Delete(context.Background(), v.Name, metav1.DeleteOptions{}) })
	}

	lintLive := func() map[string]string {
		res, err := Lint(ctx, c, Options{Live: true, List: ListOptions{ChunkSize: 50}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Notes) > 0 {
			t.Errorf("notes: %v", res.Notes)
		}
		out := map[string]string{}
		for _, d := range res.Diagnostics {
			if strings.HasPrefix(d.Object.Name, "live-") && (d.Rule == "service-unavailable" || strings.HasSuffix(d.Path, ".namespaceSelector")) {
				out[d.Object.Name+" "+d.Rule+" "+d.Path] += d.Message + "\n"
			}
		}
		return out
	}
	got := lintLive()
	for key, text := range map[string]string{
		"live-port service-unavailable webhooks[0].clientConfig.service.port": `no service port 8443 found for service "live-e2e/checker" (it has ports 443 ("https"))`,
		"live-ready service-unavailable webhooks[0].clientConfig.service":     `service "live-e2e/checker" has no ready endpoints for port 443 ("https")`,
		// The server stores an omitted namespaceSelector as {}. Failing
		// closed on pods, the webhook has kube-system's finding and its own
		// namespace's from the rules the file mode reports them with, and
		// namespace-selector-live does not say either again.
		"live-ready system-critical-scope webhooks[0].namespaceSelector": `fails closed on kube-system pods`,
		"live-ready self-deadlock webhooks[0].namespaceSelector":         `blocks its backend: any pod in its namespace; exclude namespace "live-e2e"`,
	} {
		if !strings.Contains(got[key], text) {
			t.Errorf("%s: got %q, want %q", key, got[key], text)
		}
	}
	for key, text := range got {
		if strings.HasPrefix(key, "live-ready ") && strings.HasSuffix(key, "namespaceSelector") && (strings.Contains(key, "namespace-selector-live") || strings.Count(text, "\n") != 1) {
			t.Errorf("one cause, one finding: %s: %q", key, text)
		}
	}

	// A ready endpoint behind the port resolves the finding.
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: "checker-1", Labels: map[string]string{discoveryv1.LabelServiceName: "checker"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptrTo("https"), Port: ptrTo(int32(9443))}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.7"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
	}
	if _, err := c.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.DiscoveryV1().EndpointSlices(ns).Delete(context.Background(), "checker-1", metav1.DeleteOptions{})
	})
	got = lintLive()
	if text := got["live-ready service-unavailable webhooks[0].clientConfig.service"]; text != "" {
		t.Errorf("still reported with a ready endpoint: %s", text)
	}
	if got["live-port service-unavailable webhooks[0].clientConfig.service.port"] == "" {
		t.Error("the wrong port is no longer reported")
	}
}

func ptrTo[T any](v T) *T { return &v }
