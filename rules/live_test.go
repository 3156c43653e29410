package rules

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runLive runs one rule over a validating configuration given as YAML
// against live, returning "path: message" lines.
func runLive(t *testing.T, rule, config string, live *LiveInventory) []string {
	t.Helper()
	c := decodeTestConfig(t, config)
	return runRuleFindings(t, rule, c, &Inventory{Configs: []*Config{c}, Live: live}, nil)
}

func expectLive(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("finding %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

func liveService(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.7", Ports: ports},
	}
}

func liveSlice(ns, svc, port string, ready ...bool) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: svc + "-abc", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		Ports:      []discoveryv1.EndpointPort{{Name: &port}},
	}
	for _, r := range ready {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.1.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &r}})
	}
	return s
}

const svcWebhook = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
webhooks:
- name: check.example.com
  clientConfig:
    service: {namespace: policy, name: checker, port: 8443}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
  - {apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}
`

func TestServiceUnavailable(t *testing.T) {
	https := corev1.ServicePort{Name: "https", Port: 8443}
	cases := []struct {
		name string
		live *LiveInventory
		want []string
	}{
		{"services unknown", &LiveInventory{}, nil},
		{"missing", &LiveInventory{Services: []*corev1.Service{}},
			[]string{`error webhooks[0].clientConfig.service: service "policy/checker" does not exist in the cluster, so every request`}},
		{"wrong port", &LiveInventory{Services: []*corev1.Service{liveService("policy", "checker", corev1.ServicePort{Name: "https", Port: 443})}},
			[]string{`webhooks[0].clientConfig.service.port: no service port 8443 found for service "policy/checker" (it has ports 443 ("https"))`}},
		{"headless", &LiveInventory{Services: []*corev1.Service{func() *corev1.Service {
			s := liveService("policy", "checker", https)
			s.Spec.ClusterIP = corev1.ClusterIPNone
			return s
		}()}}, []string{`headless`}},
		{"no ready endpoints", &LiveInventory{
			Services:       []*corev1.Service{liveService("policy", "checker", https)},
			EndpointSlices: []*discoveryv1.EndpointSlice{liveSlice("policy", "checker", "https", false, false)},
		}, []string{`has no ready endpoints for port 8443 ("https")`}},
		{"endpoints for another port only", &LiveInventory{
			Services:       []*corev1.Service{liveService("policy", "checker", https)},
			EndpointSlices: []*discoveryv1.EndpointSlice{liveSlice("policy", "checker", "metrics", true)},
		}, []string{`no ready endpoints`}},
		{"healthy", &LiveInventory{
			Services:       []*corev1.Service{liveService("policy", "checker", https)},
			EndpointSlices: []*discoveryv1.EndpointSlice{liveSlice("policy", "checker", "https", false, true)},
		}, nil},
		{"slices unknown", &LiveInventory{Services: []*corev1.Service{liveService("policy", "checker", https)}}, nil},
		{"external name", &LiveInventory{Services: []*corev1.Service{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "policy", Name: "checker"},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "checker.example.com"},
		}}, EndpointSlices: []*discoveryv1.EndpointSlice{}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expectLive(t, runLive(t, "service-unavailable", svcWebhook, tc.live), tc.want...)
		})
	}
	t.Run("fail open is a warning", func(t *testing.T) {
		got := runLive(t, "service-unavailable", strings.Replace(svcWebhook, "sideEffects", "failurePolicy: Ignore\n  sideEffects", 1),
			&LiveInventory{Services: []*corev1.Service{}})
		expectLive(t, got, `warning webhooks[0].clientConfig.service: service "policy/checker" does not exist in the cluster, so the webhook is silently skipped`)
	})
	t.Run("offline is silent", func(t *testing.T) {
		expectLive(t, runLive(t, "service-unavailable", svcWebhook, nil))
	})
}

func liveNamespace(name string, labels map[string]string) *corev1.Namespace {
	l := map[string]string{"kubernetes.io/metadata.name": name}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}
}

func TestNamespaceSelectorLive(t *testing.T) {
	live := &LiveInventory{Namespaces: []*corev1.Namespace{
		liveNamespace("kube-system", nil),
		liveNamespace("policy", map[string]string{"team": "policy"}),
		liveNamespace("apps", nil),
	}}
	// Failing open: what a webhook that fails closed on pods intercepts in
	// kube-system and in its own namespace is system-critical-scope's and
	// self-deadlock's finding (below).
	open := strings.Replace(svcWebhook, "sideEffects", "failurePolicy: Ignore\n  sideEffects", 1)
	withSelector := func(sel string) string {
		return strings.Replace(open, "  rules:", "  namespaceSelector: "+sel+"\n  rules:", 1)
	}
	expectLive(t, runLive(t, "namespace-selector-live", open, live),
		`warning webhooks[0]: no namespaceSelector matches namespace "kube-system": an outage of the webhook blocks or delays requests there; exclude it`,
		`warning webhooks[0]: no namespaceSelector matches the webhook's own namespace "policy" (labels: team=policy): its own pods pass through it; exclude it`)

	// One cause, one finding: failing closed on pods, the file mode's rules
	// have both; on configmaps, self-deadlock has nothing to say of its
	// own namespace, and this rule does.
	expectLive(t, runLive(t, "namespace-selector-live", svcWebhook, live))
	configmaps := strings.Replace(svcWebhook, "resources: [pods]", "resources: [configmaps]", 1)
	expectLive(t, runLive(t, "namespace-selector-live", configmaps, live),
		`warning webhooks[0]: no namespaceSelector matches the webhook's own namespace "policy" (labels: team=policy): failing closed, it can block its own recovery; exclude it`)

	// The server stores an omitted selector as {}.
	expectLive(t, runLive(t, "namespace-selector-live", withSelector(`{}`), live),
		`webhooks[0].namespaceSelector: namespaceSelector {} matches namespace "kube-system"`,
		`webhooks[0].namespaceSelector: namespaceSelector {} matches the webhook's own namespace "policy"`)

	// A label nobody set excludes nothing.
	expectLive(t, runLive(t, "namespace-selector-live",
		withSelector(`{matchExpressions: [{key: control-plane, operator: DoesNotExist}]}`), live),
		`webhooks[0].namespaceSelector: namespaceSelector matches namespace "kube-system"`,
		`webhooks[0].namespaceSelector: namespaceSelector matches the webhook's own namespace "policy"`)

	// The name label excludes for real.
	expectLive(t, runLive(t, "namespace-selector-live",
		withSelector(`{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}]}`), live))

	// Cluster-scoped rules are never filtered by namespaceSelector.
	clusterOnly := strings.Replace(svcWebhook, "resources: [pods], operations: [CREATE]", "resources: [nodes], operations: [CREATE], scope: Cluster", 1)
	expectLive(t, runLive(t, "namespace-selector-live", clusterOnly, live))

	// With discovery, a cluster-scoped resource under scope "*" is recognized too.
	nodes := strings.Replace(svcWebhook, "resources: [pods]", "resources: [nodes]", 1)
	withDiscovery := *live
	withDiscovery.Served = []ServedResource{{Version: "v1", Resource: "nodes"}, {Version: "v1", Resource: "pods", Namespaced: true}}
	expectLive(t, runLive(t, "namespace-selector-live", nodes, &withDiscovery))
	expectLive(t, runLive(t, "namespace-selector-live", open, &withDiscovery), `"kube-system"`, `"policy"`)

	// Namespaces unknown (no RBAC): silent.
	expectLive(t, runLive(t, "namespace-selector-live", svcWebhook, &LiveInventory{}))
}

func TestUnservedResources(t *testing.T) {
	live := &LiveInventory{Served: []ServedResource{
		{Version: "v1", Resource: "pods", Namespaced: true},
		{Version: "v1", Resource: "pods/status", Namespaced: true},
		{Version: "v1", Resource: "pods/exec", Namespaced: true},
		{Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true},
		{Group: "apps", Version: "v1", Resource: "deployments/scale", Namespaced: true},
		{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Namespaced: true},
	}, UnavailableGroups: []string{"metrics.k8s.io/v1beta1"}}
	rule := func(r string) string {
		return strings.Replace(svcWebhook, `{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}`, r, 1)
	}
	cases := []struct {
		rule string
		want []string
	}{
		{`{apiGroups: [apps], apiVersions: [v1], resources: [deployments, deployments/scale, "deployments/*"], operations: [CREATE]}`, nil},
		{`{apiGroups: ["*"], apiVersions: ["*"], resources: ["*", "*/status"], operations: [CREATE]}`, nil},
		{`{apiGroups: [app], apiVersions: [v1], resources: [deployments], operations: [CREATE]}`,
			[]string{`warning webhooks[0].rules[0].apiGroups[0]: group "app" is not served, so this rule never matches it (closest served: "apps")`}},
		{`{apiGroups: [apps], apiVersions: [v1beta1], resources: [deployments], operations: [CREATE]}`,
			[]string{`webhooks[0].rules[0].apiVersions[0]: version "v1beta1" is not served in group "apps", so this rule never matches it (closest served: "v1")`}},
		{`{apiGroups: [apps], apiVersions: [v1], resources: [deployment, deployments/scales], operations: [CREATE]}`,
			[]string{
				`webhooks[0].rules[0].resources[0]: resource "deployment" is not served in group "apps", so this rule never matches it (closest served: "deployments")`,
				`webhooks[0].rules[0].resources[1]: resource "deployments/scales" is not served in group "apps", so this rule never matches it (closest served: "deployments/scale")`,
			}},
		{`{apiGroups: ["", apps], apiVersions: ["*"], resources: [pods/logs, "crontabs/*"], operations: [CONNECT]}`,
			[]string{`resources[0]: resource "pods/logs" is not served in groups "" (core), "apps"`, `resources[1]: resource "crontabs" is not served`}},
		{`{apiGroups: [stable.example.com], apiVersions: [v1], resources: [crontabs], operations: [CREATE]}`, nil},
		{`{apiGroups: [metrics.k8s.io], apiVersions: [v1beta1], resources: [podmetrics], operations: [CREATE]}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			expectLive(t, runLive(t, "unserved-resources", rule(tc.rule), live), tc.want...)
		})
	}
	expectLive(t, runLive(t, "unserved-resources", rule(cases[2].rule), &LiveInventory{}))
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"deployment", "deployments"},
		{"Pods", "pods"},
		{"x", "pods"},
	} {
		if got := closest(tc.s, []string{"pods", "deployments", "services"}); got != tc.want {
			t.Errorf("closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
	if got := closest("a", nil); got != "" {
		t.Errorf("closest without candidates = %q", got)
	}
}
