package simulate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// load parses fixture files the way the command line does.
func load(t *testing.T, names ...string) *rules.Inventory {
	t.Helper()
	var files []*manifest.File
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		f := manifest.Parse(n, data)
		for _, d := range f.Diagnostics {
			t.Fatalf("%s: %s", n, d.Message)
		}
		files = append(files, f)
	}
	return manifest.Inventory(files)
}

// run resolves the flags args and simulates them against the fixtures.
func run(t *testing.T, args []string, fixtures ...string) *Chain {
	t.Helper()
	fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	var f Flags
	f.Bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	// Object files are named relative to testdata.
	for _, p := range []*string{&f.Spec.ObjectFile, &f.Spec.OldObjectFile} {
		if *p != "" {
			*p = filepath.Join("testdata", *p)
		}
	}
	req, err := f.Spec.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	inv := load(t, fixtures...)
	return Simulate(inv.Configs, req, Options{NamespaceLabels: inv.NamespaceLabels, Policies: inv.Policies})
}

// decisions maps "configuration/webhook" to its decision.
func decisions(calls []*Call) map[string]Decision {
	out := map[string]Decision{}
	for _, c := range calls {
		out[c.id()] = c.Decision
	}
	return out
}

func order(calls []*Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.id())
	}
	return out
}

func wantDecisions(t *testing.T, calls []*Call, want map[string]Decision) {
	t.Helper()
	got := decisions(calls)
	if len(got) != len(want) {
		t.Errorf("got %d webhooks %v, want %d", len(got), got, len(want))
	}
	for id, d := range want {
		if got[id] != d {
			t.Errorf("%s: %q, want %q", id, got[id], d)
		}
	}
}

func TestChainOrderSelectorsAndConditions(t *testing.T) {
	ch := run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=team-a", "--object=pod.yaml", "--user=alice", "--group=system:authenticated"}, "chain.yaml")
	// Configurations by name (a-first, b-inject, c-legacy), then webhooks in order.
	if got, want := strings.Join(order(ch.Mutating), " "), "a-first/first.example.com b-inject/sidecar.example.com b-inject/defaults.example.com c-legacy/legacy.example.com"; got != want {
		t.Errorf("mutating order %q, want %q", got, want)
	}
	wantDecisions(t, ch.Mutating, map[string]Decision{
		"a-first/first.example.com":     Called, // namespace team-a has team=a (from the Namespace in the file)
		"b-inject/sidecar.example.com":  Called,
		"b-inject/defaults.example.com": Called,
		"c-legacy/legacy.example.com":   Called,
	})
	wantDecisions(t, ch.Validating, map[string]Decision{
		"policy/deploy.example.com": NotCalled,
		"policy/pods.example.com":   Called, // alice is not admin
	})
	// Legacy v1beta1 defaults: timeout 30s, failurePolicy Ignore.
	if l := ch.Latency; l.MutatingSeconds != 10+10+5+30 || l.ValidatingSeconds != 10 {
		t.Errorf("latency %+v", l)
	}
	if ch.ExitCode() != 1 {
		t.Errorf("exit %d: fail-closed webhooks are called", ch.ExitCode())
	}

	// In kube-system the first condition of sidecar is false; an admin
	// skips pods.example.com; team-a labels are unknown elsewhere.
	ch = run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=kube-system", "--object=pod.yaml", "--user=admin"}, "chain.yaml")
	wantDecisions(t, ch.Mutating, map[string]Decision{
		"a-first/first.example.com":     MaybeCalled,
		"b-inject/sidecar.example.com":  NotCalled,
		"b-inject/defaults.example.com": Called,
		"c-legacy/legacy.example.com":   Called,
	})
	wantDecisions(t, ch.Validating, map[string]Decision{"policy/deploy.example.com": NotCalled, "policy/pods.example.com": NotCalled})

	// Without the object the objectSelector and object conditions are unknown.
	ch = run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=team-a"}, "chain.yaml")
	wantDecisions(t, ch.Mutating, map[string]Decision{
		"a-first/first.example.com":     Called,
		"b-inject/sidecar.example.com":  MaybeCalled,
		"b-inject/defaults.example.com": MaybeCalled,
		"c-legacy/legacy.example.com":   Called,
	})
	sidecar := ch.Mutating[1]
	if c := sidecar.Checks[len(sidecar.Checks)-1]; c.Result != UnknownMatch || len(c.Missing) != 1 || !strings.Contains(c.Missing[0], "--object") {
		t.Errorf("sidecar's has-label condition: %+v", c)
	}
	if c := sidecar.Checks[len(sidecar.Checks)-2]; c.Result != Match {
		t.Errorf("sidecar's namespace condition needs nothing but the namespace: %+v", c)
	}
}

func TestDryRunRejectsSideEffects(t *testing.T) {
	ch := run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=team-a", "--object=pod.yaml", "--user=alice", "--dry-run"}, "chain.yaml")
	wantDecisions(t, ch.Mutating, map[string]Decision{
		"a-first/first.example.com":     Called, // NoneOnDryRun
		"b-inject/sidecar.example.com":  Called,
		"b-inject/defaults.example.com": Called,
		"c-legacy/legacy.example.com":   Rejects, // v1beta1 default sideEffects Unknown
	})
	for _, c := range ch.Validating {
		if c.Decision != NotReached {
			t.Errorf("%s: %q after the mutating chain rejected the request", c.id(), c.Decision)
		}
	}
	if ch.Rejected != "c-legacy/legacy.example.com" || ch.ExitCode() != 1 {
		t.Errorf("rejected at %q, exit %d", ch.Rejected, ch.ExitCode())
	}
}

func TestMatchPolicyEquivalent(t *testing.T) {
	ch := run(t, []string{"--operation=CREATE", "--resource=horizontalpodautoscalers.autoscaling", "--namespace=default", "--object=hpa.yaml"}, "equivalent.yaml")
	wantDecisions(t, ch.Validating, map[string]Decision{
		// Converted to autoscaling/v1: the object condition cannot be
		// evaluated on the autoscaling/v2 object given.
		"hpa/equivalent.example.com": MaybeCalled,
		"hpa/exact.example.com":      NotCalled,
		"hpa/events.example.com":     NotCalled,
	})
	eq := ch.Validating[0]
	if eq.InvokedAs == nil || eq.InvokedAs.Version != "v1" || eq.InvokedAs.Kind != "HorizontalPodAutoscaler" {
		t.Errorf("invokedAs %+v", eq.InvokedAs)
	}
	if c := eq.Checks[3]; c.Result != UnknownMatch || !strings.Contains(strings.Join(c.Missing, " "), "converted to autoscaling/v1") {
		t.Errorf("object condition after conversion: %+v", c)
	}
	if c := eq.Checks[4]; c.Result != Match {
		t.Errorf("request condition after conversion: %+v", c)
	}

	// Core events are stored with events.k8s.io events: equivalent.
	ch = run(t, []string{"--operation=CREATE", "--resource=events", "--namespace=default"}, "equivalent.yaml")
	if got := decisions(ch.Validating)["hpa/events.example.com"]; got != Called {
		t.Errorf("core event against an events.k8s.io rule: %q", got)
	}
	if inv := ch.Validating[2].InvokedAs; inv == nil || inv.Group != "events.k8s.io" {
		t.Errorf("invokedAs %+v", inv)
	}
}

func TestReinvocation(t *testing.T) {
	// Nothing said about changes: every later webhook may trigger it.
	ch := run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=default"}, "reinvoke.yaml")
	if len(ch.Reinvocations) != 2 {
		t.Fatalf("reinvocations %+v", ch.Reinvocations)
	}
	first, third := ch.Reinvocations[0], ch.Reinvocations[1]
	if first.Decision != MaybeCalled || !strings.Contains(first.Reason, "m1/second.example.com or m2/third.example.com") {
		t.Errorf("first: %+v", first)
	}
	if third.Decision != MaybeCalled || !strings.Contains(third.Reason, "MutatingAdmissionPolicy") {
		t.Errorf("third: %+v", third)
	}
	// Mutating 2+3+4, validating in parallel: max(7, 1); reinvocations maybe.
	if l := ch.Latency; l.TotalSeconds != 9+7 || l.WithMaybeSeconds != 9+2+4+7 {
		t.Errorf("latency %+v", l)
	}
	if ch.ExitCode() != 1 {
		t.Errorf("exit %d", ch.ExitCode())
	}

	// second changes the object: first runs again, third (called after) not.
	ch = run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--changes=second.example.com"}, "reinvoke.yaml")
	first, third = ch.Reinvocations[0], ch.Reinvocations[1]
	if first.Decision != Called || third.Decision != NotCalled {
		t.Errorf("first %+v, third %+v", first, third)
	}
	if l := ch.Latency; l.ReinvocationSeconds != 2 || l.TotalSeconds != 9+2+7 {
		t.Errorf("latency %+v", l)
	}
	// Only the last one changes it: both reinvocable webhooks before it... only first.
	ch = run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--changes=m2/third.example.com"}, "reinvoke.yaml")
	if ch.Reinvocations[0].Decision != Called || ch.Reinvocations[1].Decision != NotCalled {
		t.Errorf("%+v %+v", ch.Reinvocations[0], ch.Reinvocations[1])
	}
}

func TestConditionErrors(t *testing.T) {
	ch := run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--object=pod.yaml"}, "celerror.yaml")
	wantDecisions(t, ch.Validating, map[string]Decision{
		"a-plain/plain.example.com":           NotCalled, // the dispatcher stops before calling any
		"b-broken/broken.example.com":         Rejects,
		"b-broken/broken-ignored.example.com": NotCalled,
	})
	if ch.Rejected != "b-broken/broken.example.com" || ch.ExitCode() != 1 {
		t.Errorf("rejected at %q", ch.Rejected)
	}
	if c := ch.Validating[1].Checks[3]; c.Result != Error || !strings.Contains(c.Detail, "no such key") {
		t.Errorf("broken condition: %+v", c)
	}
	// DELETE: object is null, so object.spec errors as well; with the old
	// object unknown the condition reads only object, which is known null.
	ch = run(t, []string{"--operation=DELETE", "--resource=pods", "--namespace=default", "--name=web"}, "celerror.yaml")
	if got := decisions(ch.Validating)["b-broken/broken.example.com"]; got != Rejects {
		t.Errorf("DELETE: %q", got)
	}
}

func TestConnectAndNamespaces(t *testing.T) {
	ch := run(t, []string{"--operation=CONNECT", "--resource=pods/exec", "--namespace=shop", "--name=web"}, "connect.yaml", "namespace.yaml")
	wantDecisions(t, ch.Validating, map[string]Decision{
		"exec/exec-all.example.com": Called,
		// PodExecOptions carry no metadata: a non-empty objectSelector never matches.
		"exec/exec-selected.example.com": NotCalled,
		"exec/namespaces.example.com":    Called,
	})
	// A namespace's own labels decide its creation.
	ch = run(t, []string{"--operation=CREATE", "--resource=namespaces", "--object=namespace.yaml"}, "connect.yaml")
	if got := decisions(ch.Validating)["exec/namespaces.example.com"]; got != Called {
		t.Errorf("namespace creation: %q", got)
	}
	if ch.Request.Namespace != "shop" {
		t.Errorf("request namespace %q, want the namespace's name", ch.Request.Namespace)
	}
}

func TestNeverSent(t *testing.T) {
	ch := run(t, []string{"--operation=CREATE", "--resource=validatingwebhookconfigurations.admissionregistration.k8s.io"}, "reinvoke.yaml")
	if ch.NeverSent == "" || ch.ExitCode() != 0 {
		t.Errorf("never sent %q, exit %d", ch.NeverSent, ch.ExitCode())
	}
	for _, c := range append(ch.Mutating, ch.Validating...) {
		if c.Decision != NotCalled {
			t.Errorf("%s: %q", c.id(), c.Decision)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--operation is required"},
		{[]string{"--operation=PATCH", "--resource=pods"}, "must be CREATE, UPDATE, DELETE or CONNECT"},
		{[]string{"--operation=CREATE"}, "--resource is required"},
		{[]string{"--operation=CREATE", "--resource=pod", "--namespace=x"}, `core API group has no resource "pod"`},
		{[]string{"--operation=CREATE", "--resource=pods"}, "pods are namespaced: give --namespace"},
		{[]string{"--operation=CREATE", "--resource=nodes", "--namespace=x"}, "nodes are cluster-scoped"},
		{[]string{"--operation=CREATE", "--resource=pods/exec", "--namespace=x"}, "pods/exec are CONNECT, never CREATE"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--api-version=v2"}, "served as v1, not v2"},
		{[]string{"--operation=CREATE", "--resource=widgets.example.com", "--namespace=x"}, "--api-version is required"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--old-object=testdata/pod.yaml"}, "CREATE requests carry no old object"},
		{[]string{"--operation=DELETE", "--resource=pods", "--namespace=x", "--object=testdata/pod.yaml"}, "DELETE requests carry no object"},
		{[]string{"--operation=CREATE", "--resource=deployments.apps", "--namespace=x", "--object=testdata/pod.yaml"}, "is a Pod, but requests on deployments.apps carry a Deployment"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--group=g"}, "--group needs --user"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--namespace-labels=a=b=c"}, "--namespace-labels"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--object=testdata/missing.yaml"}, "no such file"},
		{[]string{"--operation=CREATE", "--resource=pods.apps", "--namespace=x"}, `apps API group has no resource "pods.apps"`},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--object=testdata/bad/empty.yaml"}, "holds no object"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--object=testdata/bad/list.yaml"}, "not a YAML or JSON object"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--object=testdata/bad/metadata.yaml"}, "metadata is not an object"},
		{[]string{"--operation=CREATE", "--resource=pods", "--namespace=x", "--object=testdata/bad/labels.yaml"}, "metadata.labels must map strings to strings"},
	} {
		fs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
		var f Flags
		f.Bind(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		_, err := f.Spec.Resolve()
		if u := (UsageError{}); !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// TestGolden pins the text and JSON output of representative chains.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		fixtures []string
	}{
		{"chain", []string{"--operation=CREATE", "--resource=pods", "--namespace=team-a", "--object=pod.yaml", "--user=alice", "--group=system:authenticated"}, []string{"chain.yaml"}},
		{"dry-run", []string{"--operation=CREATE", "--resource=pods", "--namespace=team-a", "--dry-run"}, []string{"chain.yaml"}},
		{"equivalent", []string{"--operation=CREATE", "--resource=horizontalpodautoscalers.autoscaling", "--namespace=default", "--object=hpa.yaml"}, []string{"equivalent.yaml"}},
		{"reinvoke", []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--changes=second.example.com"}, []string{"reinvoke.yaml"}},
		{"cel-error", []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--object=pod.yaml"}, []string{"celerror.yaml"}},
		{"exec", []string{"--operation=CONNECT", "--resource=pods/exec", "--namespace=shop", "--name=web"}, []string{"connect.yaml", "namespace.yaml"}},
		{"policies", []string{"--operation=CREATE", "--resource=pods", "--namespace=shop", "--object=pod.yaml", "--user=alice"}, []string{"policies.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := run(t, tc.args, tc.fixtures...)
			var text, js bytes.Buffer
			if err := ch.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := ch.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name+".txt", text.Bytes())
			checkGolden(t, tc.name+".json", js.Bytes())
			validateSchema(t, js.Bytes())
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", "golden", name), got)
}

// A pod's deletion is admitted twice when it is immediate (store.go Delete).
func TestDeletePasses(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		passes int
		total  int64
	}{
		{[]string{"--old-object=pod.yaml"}, 2, 2 * 10},
		{[]string{"--old-object=pod-on-node.yaml"}, 1, 10},
		{[]string{"--old-object=pod-finalizer.yaml"}, 1, 10},
		{[]string{"--old-object=pod.yaml", "--dry-run"}, 1, 10},
		{[]string{"--name=web"}, 0, 10},
	} {
		args := append([]string{"--operation=DELETE", "--resource=pods", "--namespace=default"}, tc.args...)
		ch := run(t, args, "delete.yaml")
		if ch.AdmissionPasses != tc.passes || ch.Latency.TotalSeconds != tc.total {
			t.Errorf("%v: %d passes (%s), total %ds; want %d, %ds", tc.args, ch.AdmissionPasses, ch.PassesReason, ch.Latency.TotalSeconds, tc.passes, tc.total)
		}
	}
}

// Custom resources take group, version and kind from the flags; what the
// flags do not say is missing, not guessed.
func TestCustomResource(t *testing.T) {
	cfg := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: widgets}
webhooks:
- name: widgets.example.com
  clientConfig: {url: "https://example.com/w"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - {operations: [CREATE], apiGroups: [example.com], apiVersions: [v1], resources: [widgets], scope: Namespaced}
  matchConditions:
  - {name: kind, expression: 'request.kind.kind == "Widget"'}
`
	configs := manifest.Inventory([]*manifest.File{manifest.Parse("w.yaml", []byte(cfg))}).Configs
	for _, tc := range []struct {
		spec Spec
		want Decision
	}{
		{Spec{Operation: "CREATE", Resource: "widgets.example.com", APIVersion: "v1", Namespace: "ns", Kind: "Widget"}, Called},
		{Spec{Operation: "CREATE", Resource: "widgets.example.com", APIVersion: "v1", Namespace: "ns"}, MaybeCalled},
		{Spec{Operation: "CREATE", Resource: "widgets", APIGroup: "example.com", APIVersion: "v1", Namespace: "ns", Kind: "Gadget"}, NotCalled},
		{Spec{Operation: "CREATE", Resource: "widgets.example.com", APIVersion: "v1", Kind: "Widget"}, NotCalled}, // cluster-scoped request, Namespaced rule
	} {
		req, err := tc.spec.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if got := Simulate(configs, req, Options{}).Validating[0]; got.Decision != tc.want {
			t.Errorf("%+v: %q (%s), want %q", tc.spec, got.Decision, got.Reason, tc.want)
		}
	}
}

func policyDecisions(calls []*PolicyCall) map[string]string {
	out := map[string]string{}
	for _, c := range calls {
		out[c.Policy+"/"+c.Binding] = string(c.Decision) + ", " + string(c.Effect)
	}
	return out
}

// Policies: which bindings meet the request, and what their validations do.
func TestPolicies(t *testing.T) {
	// In kube-system the matchCondition is false, the team-a binding's
	// namespaceSelector is unknown (no Namespace object), and the pod
	// named debug is excluded by name: nothing certainly denies.
	ch := run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=kube-system", "--object=pod.yaml", "--name=debug"}, "policies.yaml")
	got := policyDecisions(ch.ValidatingPolicies)
	for id, want := range map[string]string{
		"deployments-only/deployments-only":        "does not apply, ",
		"not-in-kube-system/not-in-kube-system":    "does not apply, ",
		"replica-limit/replica-limit":              "applies, unknown",
		"team-label/team-label-warn":               "applies, warns",
		"trusted-registry/trusted-registry-team-a": "may apply, unknown",
	} {
		if got[id] != want {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
	if ch.Rejected != "" || decisions(ch.Validating)["check/pods.example.com"] != Called {
		t.Errorf("rejected at %q, validating webhooks %v: no policy certainly denies", ch.Rejected, decisions(ch.Validating))
	}
	if c := ch.ValidatingPolicies[1].Checks[2]; c.Check != "matchConstraints.excludeResourceRules" || c.Result != Match {
		t.Errorf("the pod named debug is excluded: %+v", c)
	}

	// Without the object, validations reading it are unknown.
	ch = run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=shop"}, "policies.yaml")
	if got := policyDecisions(ch.ValidatingPolicies)["trusted-registry/trusted-registry-team-a"]; got != "applies, unknown" {
		t.Errorf("trusted-registry without the object: %q", got)
	}
	if ch.Rejected != "" {
		t.Errorf("rejected at %q without the object", ch.Rejected)
	}

	// A deletion carries no object: mutating policies apply nothing.
	ch = run(t, []string{"--operation=DELETE", "--resource=pods", "--namespace=shop", "--name=web"}, "policies.yaml")
	if len(ch.MutatingPolicies) != 1 || ch.MutatingPolicies[0].Decision != DoesNotApply {
		t.Errorf("add-owner matches CREATE only: %+v", ch.MutatingPolicies)
	}

	// Without policies in the input the output has no policy sections.
	ch = run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=shop"}, "reinvoke.yaml")
	var text bytes.Buffer
	if err := ch.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "admission policies") {
		t.Errorf("policy sections without policies:\n%s", text.String())
	}
}

// An expression error counts as a failure under failurePolicy Fail and is
// dropped under Ignore; a matchCondition error under Fail rejects.
func TestPolicyErrors(t *testing.T) {
	ch := run(t, []string{"--operation=CREATE", "--resource=pods", "--namespace=default", "--object=pod.yaml"}, "policy-errors.yaml")
	got := policyDecisions(ch.ValidatingPolicies)
	for id, want := range map[string]string{
		"condition-error/condition-error": "rejects the request, denies",
		"fail-closed/fail-closed":         "applies, denies",
		"fail-open/fail-open":             "applies, admits",
		"with-params/with-params":         "applies, unknown",
	} {
		if got[id] != want {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
	if ch.Rejected != "ValidatingAdmissionPolicy condition-error with binding condition-error" || ch.ExitCode() != 1 {
		t.Errorf("rejected at %q, exit %d", ch.Rejected, ch.ExitCode())
	}
	if v := ch.ValidatingPolicies[1].Validations[0]; v.Result != Error {
		t.Errorf("fail-closed's validation: %+v", v)
	}
}
