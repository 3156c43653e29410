package cluster

// End-to-end test of the admission policies in `webhooklint cluster
// simulate` against a real kube-apiserver: a MutatingAdmissionPolicy and
// ValidatingAdmissionPolicies with their bindings, beside one mutating and
// one validating webhook (testdata/simulate-policies-e2e.yaml). For each
// request the simulator's outcome must be the server's: which policy
// denies (and that the validating webhook is then not reached), which
// webhooks are called, and the warnings of Warn bindings, which the server
// returns as warning headers. That the mutating webhook receives the label
// the mutating policy adds shows the policy runs first.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	regv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// policyLabel is the namespace label every object of the test selects.
const policyLabel = "webhooklint-simulate-policies-e2e"

// warningRecorder keeps the warning headers the server returns.
type warningRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	slices.Sort(out)
	return out
}

// createPolicyObjects creates the objects of the testdata template for
// run id, deleted in t.Cleanup.
func createPolicyObjects(t *testing.T, ctx context.Context, c kubernetes.Interface, id string, b *simBackend) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "simulate-policies-e2e.yaml"))
	must(t, err)
	text := strings.NewReplacer("ID", id, "URL", b.srv.URL, "CA_BUNDLE", base64.StdEncoding.EncodeToString(b.caPEM)).Replace(string(data))
	a := c.AdmissionregistrationV1()
	bg := context.Background()
	for _, doc := range strings.Split(text, "\n---\n") {
		var head metav1.TypeMeta
		must(t, yaml.Unmarshal([]byte(doc), &head))
		decode := func(into any) { must(t, yaml.UnmarshalStrict([]byte(doc), into)) }
		switch head.Kind {
		case "MutatingAdmissionPolicy":
			var o regv1.MutatingAdmissionPolicy
			decode(&o)
			_, err = a.MutatingAdmissionPolicies().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = a.MutatingAdmissionPolicies().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		case "MutatingAdmissionPolicyBinding":
			var o regv1.MutatingAdmissionPolicyBinding
			decode(&o)
			_, err = a.MutatingAdmissionPolicyBindings().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = a.MutatingAdmissionPolicyBindings().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		case "ValidatingAdmissionPolicy":
			var o regv1.ValidatingAdmissionPolicy
			decode(&o)
			_, err = a.ValidatingAdmissionPolicies().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = a.ValidatingAdmissionPolicies().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		case "ValidatingAdmissionPolicyBinding":
			var o regv1.ValidatingAdmissionPolicyBinding
			decode(&o)
			_, err = a.ValidatingAdmissionPolicyBindings().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = a.ValidatingAdmissionPolicyBindings().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		case "MutatingWebhookConfiguration":
			var o regv1.MutatingWebhookConfiguration
			decode(&o)
			_, err = a.MutatingWebhookConfigurations().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = a.MutatingWebhookConfigurations().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		case "ValidatingWebhookConfiguration":
			var o regv1.ValidatingWebhookConfiguration
			decode(&o)
			_, err = a.ValidatingWebhookConfigurations().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = a.ValidatingWebhookConfigurations().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		default:
			t.Fatalf("testdata: unexpected kind %q", head.Kind)
		}
		must(t, err)
	}
}

// policyPrediction is what cluster simulate --format json says of this
// run's policies and webhooks.
type policyPrediction struct {
	RejectedAt       string
	Mutating         []struct{ Configuration, Webhook, Decision, Reason string }
	Validating       []struct{ Configuration, Webhook, Decision, Reason string }
	MutatingPolicies []struct {
		Policy, Binding, Decision, Reason string
	}
	ValidatingPolicies []struct {
		Policy, Binding, Decision, Reason, Effect string
		Failures, Warnings                        []string
	}
}

func predictPolicies(t *testing.T, ctx context.Context, args []string, cfg *rest.Config) (policyPrediction, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, append([]string{"simulate", "--format=json"}, args...), &stdout, &stderr, cfg)
	if code != exitClean && code != exitFindings {
		t.Fatalf("cluster simulate %v: exit %d: %s", args, code, stderr.String())
	}
	var p policyPrediction
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("cluster simulate output: %v\n%s", err, stdout.String())
	}
	return p, stdout.String()
}

func TestE2ESimulatePolicies(t *testing.T) {
	c, cfg := e2e(t)
	ctx := e2eCtx(t)
	idb := make([]byte, 4)
	_, _ = rand.Read(idb)
	id := "simpol" + hex.EncodeToString(idb)
	ns := id
	_, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{policyLabel: id}}}, metav1.CreateOptions{})
	must(t, err)
	t.Cleanup(func() { _ = c.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	// No controller manager runs: the ServiceAccount admission plugin
	// needs the default service account to admit pods.
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		must(t, err)
	}
	backend := newSimBackend(t)
	createPolicyObjects(t, ctx, c, id, backend)

	warnings := &warningRecorder{}
	wcfg := rest.CopyConfig(cfg)
	wcfg.WarningHandler = warnings
	wc, err := kubernetes.NewForConfig(wcfg)
	must(t, err)
	pods := wc.CoreV1().Pods(ns)
	mutate, validate := "mutate."+id+".example.com", "validate."+id+".example.com"

	pod := func(name string, labels map[string]string, images ...string) *corev1.Pod {
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}}
		for i, img := range images {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: fmt.Sprintf("c%d", i), Image: img})
		}
		return p
	}
	good := "registry.example.com/app:1"
	team := map[string]string{"team": "a"}
	waitForPolicies(t, ctx, pods, warnings, backend, id, []*corev1.Pod{
		pod("probe-registry", team, "nginx"),
		pod("forbidden-probe", map[string]string{"team": "a", "strict": "yes"}, good),
		pod("probe-team", nil, good),
		pod("probe-owner", team, good),
		pod("probe-templated", map[string]string{"team": "a", "templated": "yes"}, good),
	})

	dir := t.TempDir()
	user := []string{"--user=e2e-admin", "--group=system:masters", "--group=system:authenticated"}
	t.Run("RBAC without the policy kinds: policies unknown", func(t *testing.T) {
		data, err := yaml.Marshal(pod("web", team, good))
		must(t, err)
		file := filepath.Join(dir, "rbac-web.yaml")
		must(t, os.WriteFile(file, data, 0o600))
		testSimulateWithoutPolicyRBAC(t, ctx, c, cfg, id, ns, file)
	})
	for _, sc := range []struct {
		name    string
		pod     *corev1.Pod
		denials int // bindings the simulation must say deny
	}{
		{"admitted by every policy", pod("web", team, good), 0},
		{"warned twice: no team label, two containers", pod("two", nil, good, good), 0},
		{"denied by the registry policy: the validating webhook is not reached", pod("nginx", team, "nginx"), 1},
		{"denied by the strict binding's name check", pod("forbidden-one", map[string]string{"team": "a", "strict": "yes"}, good), 1},
		{"denied by two policies", pod("forbidden-nginx", map[string]string{"team": "a", "strict": "yes"}, "nginx"), 2},
		{"a validation error under failurePolicy Fail denies", pod("templated", map[string]string{"team": "a", "templated": "yes"}, good), 1},
		{"excluded by name from the name check", pod("forbidden-but-excluded", map[string]string{"team": "a", "strict": "yes"}, good), 0},
		{"not selected by the strict binding", pod("forbidden-two", team, good), 0},
	} {
		t.Run(sc.name, func(t *testing.T) {
			data, err := yaml.Marshal(sc.pod)
			must(t, err)
			file := filepath.Join(dir, sc.pod.Name+".yaml")
			must(t, os.WriteFile(file, data, 0o600))
			p, dump := predictPolicies(t, ctx, append([]string{"--operation=CREATE", "--resource=pods", "--namespace=" + ns, "--object=" + file}, user...), cfg)

			var predictedWarnings []string
			for _, v := range p.ValidatingPolicies {
				if !strings.HasPrefix(v.Policy, id+"-") {
					continue
				}
				if v.Decision == "may apply" || v.Effect == "unknown" {
					t.Errorf("%s/%s: %s, effect %s (%s): the scenario must give every input", v.Policy, v.Binding, v.Decision, v.Effect, v.Reason)
				}
				predictedWarnings = append(predictedWarnings, v.Warnings...)
			}
			slices.Sort(predictedWarnings)
			owner := false
			for _, m := range p.MutatingPolicies {
				owner = owner || (m.Policy == id+"-owner" && m.Decision == "applies")
			}
			if !owner {
				t.Errorf("the simulation does not apply %s-owner\n%s", id, dump)
			}

			backend.reset()
			warnings.take()
			_, err = pods.Create(ctx, sc.pod, metav1.CreateOptions{})
			gotWarnings := warnings.take()
			if err == nil {
				_ = pods.Delete(context.Background(), sc.pod.Name, metav1.DeleteOptions{})
			}
			switch {
			case p.RejectedAt == "" && err != nil:
				t.Fatalf("the simulation admits the request, the server says: %v\n%s", err, dump)
			case p.RejectedAt != "" && err == nil:
				t.Fatalf("the simulation says it is rejected at %s, the server admitted it\n%s", p.RejectedAt, dump)
			case err != nil:
				// The server's message is the first failure of the first
				// denial it met, in an order it does not define: any failure
				// of a binding the simulation says denies will do.
				var want []string
				denials := 0
				for _, v := range p.ValidatingPolicies {
					if v.Effect != "denies" {
						continue
					}
					denials++
					prefix := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: ", v.Policy, v.Binding)
					for _, f := range v.Failures {
						want = append(want, prefix+f)
					}
				}
				if denials != sc.denials {
					t.Errorf("the simulation has %d denying bindings, want %d\n%s", denials, sc.denials, dump)
				}
				if !slices.ContainsFunc(want, func(w string) bool { return strings.Contains(err.Error(), w) }) {
					t.Errorf("the server says %q; the simulation predicted one of %q", err, want)
				}
				t.Logf("rejected as predicted: %v", err)
			}
			t.Logf("warnings %q", gotWarnings)
			if !slices.Equal(gotWarnings, predictedWarnings) {
				t.Errorf("warnings from the server %q; the simulation predicted %q\n%s", gotWarnings, predictedWarnings, dump)
			}

			got := backend.recorded()
			predicted := map[string]int{}
			for _, list := range [][]struct{ Configuration, Webhook, Decision, Reason string }{p.Mutating, p.Validating} {
				for _, w := range list {
					if strings.HasPrefix(w.Configuration, id+"-") && w.Decision == "called" {
						predicted[w.Webhook]++
					}
				}
			}
			t.Logf("the API server called %v", sortedCalls(got))
			if !callsMatch(got, predicted, 1, false) {
				t.Errorf("the API server called %v; the simulation predicted %v\n%s", sortedCalls(got), sortedCalls(predicted), dump)
			}
			if got[mutate] > 0 && backend.labelsOf(mutate)["owner"] != "policy" {
				t.Errorf("the mutating webhook got labels %v: the mutating policy did not run before it", backend.labelsOf(mutate))
			}
			if p.RejectedAt != "" && got[validate] > 0 {
				t.Errorf("the validating webhook was called after a policy denied the request")
			}
		})
	}
}

func (b *simBackend) labelsOf(name string) map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.labels[name]
}

// waitForPolicies dry-run creates the probes until every policy and
// webhook of the run is in force: the server compiles policies and
// bindings asynchronously, about once a second.
func waitForPolicies(t *testing.T, ctx context.Context, pods interface {
	Create(context.Context, *corev1.Pod, metav1.CreateOptions) (*corev1.Pod, error)
}, warnings *warningRecorder, b *simBackend, id string, probes []*corev1.Pod) {
	t.Helper()
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	ready := func() (bool, string) {
		_, err := pods.Create(ctx, probes[0], dry)
		if err == nil || !strings.Contains(err.Error(), "'"+id+"-registry-deny'") {
			return false, fmt.Sprintf("registry probe: %v", err)
		}
		_, err = pods.Create(ctx, probes[1], dry)
		if err == nil || !strings.Contains(err.Error(), "'"+id+"-names-strict'") {
			return false, fmt.Sprintf("names probe: %v", err)
		}
		_, err = pods.Create(ctx, probes[4], dry)
		if err == nil || !strings.Contains(err.Error(), "'"+id+"-templates'") {
			return false, fmt.Sprintf("templates probe: %v", err)
		}
		warnings.take()
		_, err = pods.Create(ctx, probes[2], dry)
		if w := warnings.take(); err != nil || len(w) == 0 {
			return false, fmt.Sprintf("team probe: %v, warnings %q", err, w)
		}
		b.reset()
		out, err := pods.Create(ctx, probes[3], dry)
		if err != nil || out.Labels["owner"] != "policy" {
			return false, fmt.Sprintf("owner probe: %v", err)
		}
		calls := b.recorded()
		if calls["mutate."+id+".example.com"] == 0 || calls["validate."+id+".example.com"] == 0 {
			return false, fmt.Sprintf("webhooks not called yet: %v", calls)
		}
		return true, ""
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, why := ready()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("policies not in force after 60s: %s", why)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// A ClusterRole without the policy kinds: cluster simulate says the
// policies are unknown instead of showing none, and still simulates the
// webhooks.
func testSimulateWithoutPolicyRBAC(t *testing.T, ctx context.Context, c kubernetes.Interface, cfg *rest.Config, id, ns, objectFile string) {
	data, err := os.ReadFile(filepath.Join("testdata", "simulate-reader-without-policies.yaml"))
	must(t, err)
	bg := context.Background()
	for _, doc := range strings.Split(strings.ReplaceAll(string(data), "ID", id), "\n---\n") {
		var head metav1.TypeMeta
		must(t, yaml.Unmarshal([]byte(doc), &head))
		switch head.Kind {
		case "ClusterRole":
			var o rbacv1.ClusterRole
			must(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = c.RbacV1().ClusterRoles().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = c.RbacV1().ClusterRoles().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			must(t, yaml.UnmarshalStrict([]byte(doc), &o))
			_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, &o, metav1.CreateOptions{})
			t.Cleanup(func() { _ = c.RbacV1().ClusterRoleBindings().Delete(bg, o.Name, metav1.DeleteOptions{}) })
		default:
			t.Fatalf("testdata: unexpected kind %q", head.Kind)
		}
		must(t, err)
	}
	reader := rest.CopyConfig(cfg)
	reader.Impersonate = rest.ImpersonationConfig{UserName: id + "-reader"}
	args := []string{"--operation=CREATE", "--resource=pods", "--namespace=" + ns, "--object=" + objectFile,
		"--user=e2e-admin", "--group=system:masters", "--group=system:authenticated"}
	// RBAC is enforced at once, but give the authorizer's cache a moment.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var stdout, stderr bytes.Buffer
		code := run(ctx, append([]string{"simulate", "--format=json"}, args...), &stdout, &stderr, reader)
		var out struct {
			PoliciesUnknown    string
			ValidatingPolicies []json.RawMessage
			Validating         []struct{ Configuration, Decision string }
		}
		if code == exitClean || code == exitFindings {
			must(t, json.Unmarshal(stdout.Bytes(), &out))
			called := false
			for _, v := range out.Validating {
				called = called || (v.Configuration == id+"-validating" && v.Decision == "called")
			}
			if strings.Contains(out.PoliciesUnknown, "listing validatingadmissionpolicies is forbidden") && len(out.ValidatingPolicies) == 0 && called {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("as %s-reader: exit %d\nstdout %s\nstderr %s", id, code, stdout.String(), stderr.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}
