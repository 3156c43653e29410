package cluster

import (
	"bytes"
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/simulate"
)

func TestSimulateUsageErrors(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // never contacted
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate"}, "--operation is required"},
		{[]string{"simulate", "--operation=CREATE", "--resource=pods"}, "give --namespace"},
		{[]string{"simulate", "--operation=CREATE", "--resource=pods", "--namespace=x", "--format=xml"}, `--format: unknown format "xml"`},
		{[]string{"simulate", "--operation=CREATE", "--resource=pods", "--namespace=x", "files/"}, "reads no files"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr, cfg); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"simulate", "--operation=CREATE", "--resource=pods", "--namespace=x", "--timeout=5s"}, &stdout, &stderr, &rest.Config{Host: "http://127.0.0.1:1"})
	if code != exitFailure || !strings.Contains(stderr.String(), "list validatingwebhookconfigurations") {
		t.Errorf("unreachable cluster: exit %d, stderr %q", code, stderr.String())
	}
}

// readForSimulation takes the namespace's real labels, the served versions
// and the server version from the cluster.
func TestReadForSimulation(t *testing.T) {
	none := admissionv1.SideEffectClassNone
	url := "https://127.0.0.1:1/x"
	hook := admissionv1.ValidatingWebhook{
		Name: "hpa.example.com", ClientConfig: admissionv1.WebhookClientConfig{URL: &url}, SideEffects: &none,
		AdmissionReviewVersions: []string{"v1"},
		NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
		Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create},
			Rule: admissionv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v1"}, Resources: []string{"horizontalpodautoscalers"}}}},
	}
	c := fake.NewClientset(
		&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Webhooks: []admissionv1.ValidatingWebhook{hook}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"env": "prod"}}},
	)
	d := c.Discovery().(*fakediscovery.FakeDiscovery)
	d.FakedServerVersion = &version.Info{Major: "1", Minor: "34"}
	// This cluster serves HPAs only as autoscaling/v2.
	d.Resources = []*metav1.APIResourceList{{GroupVersion: "autoscaling/v2", APIResources: []metav1.APIResource{{Name: "horizontalpodautoscalers", Namespaced: true}}}}

	for _, tc := range []struct {
		ns   string
		want simulate.Decision
		note string
	}{
		{"shop", simulate.NotCalled, ""}, // autoscaling/v1 is not served here: no equivalent
		{"elsewhere", simulate.NotCalled, "namespace elsewhere does not exist"},
	} {
		spec := simulate.Spec{Operation: "CREATE", Resource: "horizontalpodautoscalers.autoscaling", Namespace: tc.ns}
		req, err := spec.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		configs, opts, notes, err := readForSimulation(context.Background(), c, req)
		if err != nil {
			t.Fatal(err)
		}
		if opts.KubeVersion.Minor != 34 {
			t.Errorf("kube version %v", opts.KubeVersion)
		}
		ch := simulate.Simulate(configs, req, opts)
		if len(ch.Validating) != 1 || ch.Validating[0].Decision != tc.want {
			t.Fatalf("%s: %+v", tc.ns, ch.Validating)
		}
		if tc.note != "" && !strings.Contains(strings.Join(notes, "\n"), tc.note) {
			t.Errorf("%s: notes %q", tc.ns, notes)
		}
		if tc.ns == "shop" && (ch.NamespaceLabels == nil || ch.NamespaceLabels.Partial || ch.NamespaceLabels.Set["env"] != "prod") {
			t.Errorf("namespace labels %+v", ch.NamespaceLabels)
		}
	}
	// Once the cluster serves autoscaling/v1 too, matchPolicy Equivalent matches.
	d.Resources = append(d.Resources, &metav1.APIResourceList{GroupVersion: "autoscaling/v1", APIResources: []metav1.APIResource{{Name: "horizontalpodautoscalers", Namespaced: true}}})
	req, _ := simulate.Spec{Operation: "CREATE", Resource: "horizontalpodautoscalers.autoscaling", Namespace: "shop"}.Resolve()
	configs, opts, _, err := readForSimulation(context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if ch := simulate.Simulate(configs, req, opts); ch.Validating[0].Decision != simulate.Called {
		t.Errorf("with autoscaling/v1 served: %+v", ch.Validating[0])
	}
}

// cluster simulate reads the policies the server serves, and says they
// are unknown when RBAC forbids reading them.
func TestReadForSimulationPolicies(t *testing.T) {
	p, b := vap("replicas", "1"), vapBinding("replicas", "1", "replicas")
	c := fake.NewClientset(&p, &b)
	c.Resources = []*metav1.APIResourceList{{
		GroupVersion: rules.V1,
		APIResources: []metav1.APIResource{{Name: "validatingadmissionpolicies"}, {Name: "validatingadmissionpolicybindings"}},
	}}
	req, err := simulate.Spec{Operation: "CREATE", Resource: "deployments.apps", Namespace: "shop"}.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	configs, opts, _, err := readForSimulation(context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if !opts.NoMutatingPolicies || opts.PoliciesUnknown != "" {
		t.Errorf("no mutating policy kind is served: %+v", opts)
	}
	ch := simulate.Simulate(configs, req, opts)
	if len(ch.ValidatingPolicies) != 1 || ch.ValidatingPolicies[0].Decision != simulate.Applies || ch.ValidatingPolicies[0].Effect != simulate.UnknownEffect {
		t.Errorf("validating policies: %+v", ch.ValidatingPolicies)
	}

	_, opts, _, err = readForSimulation(context.Background(), forbiddingPolicies(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(opts.PoliciesUnknown, "listing validatingadmissionpolicies is forbidden") || opts.Policies != nil || opts.NoMutatingPolicies {
		t.Errorf("forbidden: %+v", opts)
	}
	var out bytes.Buffer
	if err := simulate.Simulate(nil, req, opts).WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  (unknown: admission policies not read: listing validatingadmissionpolicies is forbidden") {
		t.Errorf("text output:\n%s", out.String())
	}
}
