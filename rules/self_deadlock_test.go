package rules

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

const podPolicyConfig = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: policy.example.com
  clientConfig: {service: {name: policy-svc, namespace: policy}}
  rules:
  - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`

func policyBackend(nsLabels map[string]string) *Inventory {
	return &Inventory{
		Services: []*corev1.Service{{
			ObjectMeta: metav1.ObjectMeta{Name: "policy-svc", Namespace: "policy"},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "policy"}},
		}},
		Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "policy", Labels: nsLabels}}},
		Workloads: []Workload{
			{
				Object:    diag.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: "policy", Namespace: "policy"},
				PodLabels: map[string]string{"app": "policy", "tier": "webhook"},
				Creates:   []GroupResource{{Group: "apps", Resource: "replicasets"}, {Resource: "pods"}},
			},
			{ // selected by nothing: other labels
				Object:    diag.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: "other", Namespace: "policy"},
				PodLabels: map[string]string{"app": "other"},
				Creates:   []GroupResource{{Group: "apps", Resource: "replicasets"}, {Resource: "pods"}},
			},
		},
	}
}

func TestSelfDeadlockNamesTheBackend(t *testing.T) {
	got := runRuleFindings(t, "self-deadlock", decodeTestConfig(t, podPolicyConfig), policyBackend(nil), nil)
	expectFindings(t, got,
		`warning webhooks[0].rules[1]: blocks its backend: Deployment "policy" (CREATE pods); exclude namespace "policy" or fail open`)
}

func TestSelfDeadlockSelectorsExcludeTheBackend(t *testing.T) {
	withSelector := func(sel string) string { return podPolicyConfig + sel }
	cases := map[string]struct {
		extra    string
		nsLabels map[string]string
	}{
		"namespace name excluded": {extra: `
  namespaceSelector:
    matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}]
`},
		"opt-out label on the namespace": {
			extra: `
  namespaceSelector:
    matchExpressions: [{key: policy.example.com/ignore, operator: DoesNotExist}]
`,
			nsLabels: map[string]string{"policy.example.com/ignore": "true"}},
		"own pods excluded": {extra: `
  objectSelector:
    matchExpressions: [{key: app, operator: NotIn, values: [policy]}]
`},
		"matchCondition on the namespace": {extra: `
  matchConditions:
  - {name: not-own-namespace, expression: 'request.namespace != "policy"'}
`},
		"fails open": {extra: `
  failurePolicy: Ignore
`},
	}
	for name, c := range cases {
		got := runRuleFindings(t, "self-deadlock", decodeTestConfig(t, withSelector(c.extra)), policyBackend(c.nsLabels), nil)
		if len(got) != 0 {
			t.Errorf("%s: want no finding, got %q", name, got)
		}
	}
}

func TestSelfDeadlockNamespaceNotInInputHasOnlyTheNameLabel(t *testing.T) {
	c := decodeTestConfig(t, podPolicyConfig+`
  namespaceSelector:
    matchExpressions: [{key: policy.example.com/ignore, operator: DoesNotExist}]
`)
	in := policyBackend(nil)
	in.Namespaces = nil
	expectFindings(t, runRuleFindings(t, "self-deadlock", c, in, nil),
		`warning webhooks[0].namespaceSelector: blocks its backend in "policy"; opt-out label unset: exclude by kubernetes.io/metadata.name NotIn [policy], or fail open`)
}

func TestSelfDeadlockWithoutServiceReasonsAboutTheNamespace(t *testing.T) {
	got := runRuleFindings(t, "self-deadlock", decodeTestConfig(t, podPolicyConfig), &Inventory{}, nil)
	expectFindings(t, got,
		`warning webhooks[0].rules[1]: blocks its backend: pods (Service not in the input); exclude namespace "policy" or fail open`)
}

// Under webhooklint cluster the input is the cluster's configurations,
// listed in full, without Services or workloads: the message says what
// the finding then means, not that the Service is missing.
func TestSelfDeadlockInClusterModeNamesThePodsOfTheNamespace(t *testing.T) {
	listed := &Inventory{Listed: map[string]bool{Validating: true}}
	got := runRuleFindings(t, "self-deadlock", decodeTestConfig(t, podPolicyConfig), listed, nil)
	expectFindings(t, got,
		`warning webhooks[0].rules[1]: blocks its backend: any pod in its namespace; exclude namespace "policy" or fail open`)
}

func TestSelfDeadlockUndecidedMatchConditionsAreMentioned(t *testing.T) {
	c := decodeTestConfig(t, podPolicyConfig+`
  matchConditions:
  - {name: gpu-only, expression: 'has(object.spec.runtimeClassName)'}
`)
	expectFindings(t, runRuleFindings(t, "self-deadlock", c, policyBackend(nil), nil), "may block its backend")
}

func TestSelfDeadlockEndpointSlicesAndSecrets(t *testing.T) {
	c := decodeTestConfig(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: everythingRules}
webhooks:
- name: everythingRules.example.com
  clientConfig: {service: {name: policy-svc, namespace: policy}}
  rules:
  - {apiGroups: ["discovery.k8s.io", ""], apiVersions: ["v1"], operations: ["*"], resources: ["endpointslices", "secrets"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	expectFindings(t, runRuleFindings(t, "self-deadlock", c, policyBackend(nil), nil),
		`warning webhooks[0].rules[0]: blocks its backend: Service "policy-svc" and 1 more; exclude namespace "policy" or fail open`)
}

func TestSelfDeadlockDependencyLoop(t *testing.T) {
	hook := func(kind, name, ns string) *Config {
		return decodeTestConfig(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: `+kind+`
metadata: {name: `+name+`}
webhooks:
- name: `+name+`.example.com
  clientConfig: {service: {name: `+name+`, namespace: `+ns+`}}
  namespaceSelector:
    matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [`+ns+`]}]
  rules:
  - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	}
	mesh, policy := hook(Mutating, "mesh", "mesh-system"), hook(Validating, "policy", "policy-system")
	backend := func(name, ns string) (*corev1.Service, Workload) {
		return &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": name}},
			}, Workload{
				Object:    diag.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: name, Namespace: ns},
				PodLabels: map[string]string{"app": name},
				Creates:   []GroupResource{{Group: "apps", Resource: "replicasets"}, {Resource: "pods"}},
			}
	}
	in := &Inventory{Configs: []*Config{mesh, policy}}
	for _, b := range [][2]string{{"mesh", "mesh-system"}, {"policy", "policy-system"}} {
		s, w := backend(b[0], b[1])
		in.Services = append(in.Services, s)
		in.Workloads = append(in.Workloads, w)
	}
	expectFindings(t, runRuleFindings(t, "self-deadlock", mesh, in, nil),
		`warning webhooks[0].namespaceSelector: webhook fails closed in a dependency loop with webhook "policy.example.com": it blocks CREATE pods for Deployment "policy-system/policy", and that webhook blocks CREATE pods for Deployment "mesh-system/mesh"; exclude each other's namespaces ("policy-system", "mesh-system") or fail open`)
	expectFindings(t, runRuleFindings(t, "self-deadlock", policy, in, nil), `warning webhooks[0].namespaceSelector: webhook fails closed in a dependency loop with webhook "mesh.example.com": it blocks CREATE pods for Deployment "mesh-system/mesh", and that webhook blocks CREATE pods for Deployment "policy-system/policy"; exclude each other's namespaces ("mesh-system", "policy-system") or fail open`)

	// One side failing open breaks the loop.
	ignore := admissionv1.Ignore
	policy.Webhooks[0].FailurePolicy = &ignore
	// A new input: what rules derive from one is kept for its whole run.
	changed := &Inventory{Configs: in.Configs, Services: in.Services, Workloads: in.Workloads}
	expectFindings(t, runRuleFindings(t, "self-deadlock", mesh, changed, nil))
}

func TestSelfDeadlockServiceAccountTokens(t *testing.T) {
	c := decodeTestConfig(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: tokens}
webhooks:
- name: tokens.example.com
  clientConfig: {service: {name: policy-svc, namespace: policy}}
  objectSelector:
    matchExpressions: [{key: app, operator: NotIn, values: [policy]}]
  rules:
  - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["serviceaccounts/token", "pods"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	// The objectSelector spares the backend's pods but not the TokenRequest
	// the kubelet sends for them, which carries no labels.
	expectFindings(t, runRuleFindings(t, "self-deadlock", c, policyBackend(nil), nil),
		`Deployment "policy" (CREATE serviceaccounts/token)`)
}

func TestFindBackendPrefersTheNamedNamespace(t *testing.T) {
	in := policyBackend(nil)
	unnamespaced := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "policy-svc"},
		Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "nothing"}},
	}
	in.Services = append([]*corev1.Service{unnamespaced}, in.Services...)
	b := findBackend(in, &admissionv1.ServiceReference{Name: "policy-svc", Namespace: "policy"})
	if b.Service == unnamespaced || len(b.Workloads) != 1 || b.Workloads[0].Object.Name != "policy" {
		t.Errorf("got Service %+v with workloads %+v", b.Service.ObjectMeta, b.Workloads)
	}
	// A new input: what rules derive from one is kept for its whole run.
	only := &Inventory{Configs: in.Configs, Services: in.Services[:1], Namespaces: in.Namespaces, Workloads: in.Workloads}
	if b := findBackend(only, &admissionv1.ServiceReference{Name: "policy-svc", Namespace: "policy"}); b.Service != unnamespaced {
		t.Errorf("a Service without namespace is taken when it is the only one")
	}
}

// interceptableGroups may leave out a backend only when the webhook
// intercepts none of its requests: checkDependencyLoops simulates no
// other.
func TestInterceptableGroupsHoldEveryInterception(t *testing.T) {
	in := &Inventory{}
	ruleSets := []string{
		`{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}`,
		`{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}`,
		`{apiGroups: ["apps"], apiVersions: ["v1beta2"], operations: ["CREATE"], resources: ["replicasets"]}`,
		`{apiGroups: ["*"], apiVersions: ["*"], operations: ["UPDATE"], resources: ["*/status"]}`,
		`{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["secrets"], scope: Cluster}`,
		`{apiGroups: ["discovery.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["endpointslices"]}`,
		`{apiGroups: ["batch"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["jobs"]}`,
	}
	var src strings.Builder
	for i, rule := range ruleSets {
		ns := fmt.Sprintf("ns-%d", i)
		fmt.Fprintf(&src, `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hook-%d}
webhooks:
- name: w%d.example.com
  clientConfig: {service: {name: svc-%d, namespace: %s}}
  matchPolicy: %s
  rules: [%s]
  sideEffects: None
  admissionReviewVersions: ["v1"]
`, i, i, i, ns, []string{"Equivalent", "Exact"}[i%2], rule)
		in.Services = append(in.Services, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", i), Namespace: ns},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": ns}},
		})
		creates := []GroupResource{{Group: "apps", Resource: "replicasets"}, {Resource: "pods"}}
		if i%3 == 2 {
			creates = []GroupResource{{Group: "batch", Resource: "jobs"}, {Resource: "pods"}}
		}
		in.Workloads = append(in.Workloads, Workload{
			Object:    diag.Object{APIVersion: "apps/v1", Kind: "Deployment", Name: ns, Namespace: ns},
			PodLabels: map[string]string{"app": ns},
			Creates:   creates,
		})
	}
	in.Configs = decodeTestConfigs(t, src.String())
	groups := loopCandidates(in)
	if len(groups) != len(ruleSets) {
		t.Fatalf("%d backend groups, want %d", len(groups), len(ruleSets))
	}
	pruned := 0
	for _, c := range in.Configs {
		w := &c.Webhooks[0]
		kept := interceptableGroups(w, in)
		if !slices.IsSorted(kept) || len(slices.Compact(slices.Clone(kept))) != len(kept) {
			t.Errorf("%s: groups %v, want ascending, each once", w.Name, kept)
		}
		for gi, g := range groups {
			if hits := simulateInterception(w, g.backend, in).hits; len(hits) > 0 && !slices.Contains(kept, gi) {
				t.Errorf("%s intercepts %s of backend %s, which interceptableGroups leaves out", w.Name, hits[0], g.backend.Namespace)
			}
		}
		pruned += len(groups) - len(kept)
	}
	if pruned == 0 {
		t.Error("interceptableGroups kept every backend for every webhook: it prunes nothing")
	}
}
