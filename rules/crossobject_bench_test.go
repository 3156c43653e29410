package rules

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCrossObjectRules runs the simulation-heavy rules over one
// configuration of 50 webhooks with selectors and matchConditions.
func BenchmarkCrossObjectRules(b *testing.B) {
	var doc strings.Builder
	doc.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: bench}\nwebhooks:\n")
	for i := range 50 {
		fmt.Fprintf(&doc, `- name: w%d.example.com
  clientConfig: {service: {name: policy-svc, namespace: policy}}
  namespaceSelector:
    matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, team-%d]}]
  objectSelector:
    matchExpressions: [{key: skip, operator: DoesNotExist}]
  matchConditions:
  - {name: c, expression: 'request.namespace != "team-%d" && !("system:nodes" in request.userInfo.groups)'}
  rules:
  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["CREATE", "UPDATE"], resources: ["*/*"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`, i, i, i)
	}
	t := &testing.T{}
	c := decodeTestConfig(t, doc.String())
	in := policyBackend(nil)
	b.ResetTimer()
	for range b.N {
		for _, name := range []string{"self-deadlock", "system-critical-scope", "never-sent-resources"} {
			NewPass(MustLookup(name), c, in, nil, func(Finding) {}).Run()
		}
	}
}
