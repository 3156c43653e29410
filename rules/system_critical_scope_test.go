package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func webhookYAML(extra string) string {
	return `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: audit}
webhooks:
- name: audit.example.com
  clientConfig: {service: {name: audit, namespace: audit}}
  sideEffects: None
  admissionReviewVersions: ["v1"]
` + extra
}

const everythingRules = `
  rules:
  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["*/*"]}
`

func TestSystemCriticalScopeEverything(t *testing.T) {
	got := runRuleFindings(t, "system-critical-scope", decodeTestConfig(t, webhookYAML(everythingRules)), nil, nil)
	expectFindings(t, got, "warning webhooks[0].rules: fails closed on node Leases and 6 more; exclude kube-*, narrow rules, or fail open")
	on136 := runRuleFindings(t, "system-critical-scope", decodeTestConfig(t, webhookYAML(everythingRules)), nil, settingsForMinor(t, 36))
	// Token/SubjectAccessReviews are intercepted from 1.36 on.
	expectFindings(t, on136, "fails closed on node Leases and 7 more; exclude kube-*")
}

func TestSystemCriticalScopeNamespaceExclusionLeavesClusterScoped(t *testing.T) {
	c := decodeTestConfig(t, webhookYAML(everythingRules+`
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}
`))
	expectFindings(t, runRuleFindings(t, "system-critical-scope", c, nil, nil),
		"warning webhooks[0].rules: fails closed on Nodes, CSRs, Events; narrow the rules for cluster-scoped objects, or fail open")
}

func TestSystemCriticalScopeOptOutLabelNobodySets(t *testing.T) {
	// control-plane DoesNotExist excludes kube-system only once someone
	// labels it: the server sets only kubernetes.io/metadata.name.
	c := decodeTestConfig(t, webhookYAML(`
  namespaceSelector:
    matchExpressions:
    - {key: control-plane, operator: DoesNotExist}
  rules:
  - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
`))
	const want = "warning webhooks[0].namespaceSelector: fails closed on kube-system pods; " +
		"opt-out label unset: exclude by kubernetes.io/metadata.name"
	expectFindings(t, runRuleFindings(t, "system-critical-scope", c, nil, nil), want)
	// The Namespace in the input does not carry it either.
	bare := &Inventory{Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}}}}
	expectFindings(t, runRuleFindings(t, "system-critical-scope", c, bare, nil), want)
	// The Namespace in the input carries it.
	labeled := &Inventory{Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{
		Name: "kube-system", Labels: map[string]string{"control-plane": "true"}}}}}
	expectFindings(t, runRuleFindings(t, "system-critical-scope", c, labeled, nil))
	// A Job of the unit labels it.
	job := &Inventory{Workloads: []Workload{{Containers: []Container{{
		Command: []string{"kubectl"}, Args: []string{"label", "ns", "kube-system", "control-plane=true", "--overwrite"}}}}}}
	expectFindings(t, runRuleFindings(t, "system-critical-scope", c, job, nil))
}

func TestSystemCriticalScopeMatchConditions(t *testing.T) {
	leases := `
  rules:
  - {apiGroups: ["coordination.k8s.io"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["leases"]}
`
	excluded := decodeTestConfig(t, webhookYAML(leases+`
  matchConditions:
  - {name: not-nodes, expression: '!("system:nodes" in request.userInfo.groups)'}
  - {name: not-system, expression: 'request.namespace != "kube-system"'}
`))
	expectFindings(t, runRuleFindings(t, "system-critical-scope", excluded, nil, nil))
	undecided := decodeTestConfig(t, webhookYAML(leases+`
  matchConditions:
  - {name: labeled, expression: 'has(object.metadata.labels)'}
`))
	expectFindings(t, runRuleFindings(t, "system-critical-scope", undecided, nil, nil),
		"warning webhooks[0].rules: may fail closed on node Leases; kube-system Leases; exclude kube-* namespaces, or fail open")
}

func TestSystemCriticalScopeQuietCases(t *testing.T) {
	for name, extra := range map[string]string{
		"fails open": everythingRules + "\n  failurePolicy: Ignore\n",
		"custom resource only": `
  rules:
  - {apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["*"], resources: ["widgets"]}
`,
		"pods outside system namespaces": `
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease, audit]}
  rules:
  - {apiGroups: ["", "apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods", "deployments"]}
`,
		"opt-in object selector": everythingRules + `
  objectSelector:
    matchLabels: {audit.example.com/enabled: "true"}
`,
		"named reviews belong to never-sent-resources": `
  rules:
  - {apiGroups: ["authentication.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["tokenreviews"]}
`,
	} {
		c := decodeTestConfig(t, webhookYAML(extra))
		for _, minor := range []int{36, 37} {
			if got := runRuleFindings(t, "system-critical-scope", c, nil, settingsForMinor(t, minor)); len(got) != 0 {
				t.Errorf("%s on 1.%d: want no finding, got %q", name, minor, got)
			}
		}
	}
}
