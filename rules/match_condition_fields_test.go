package rules

import (
	"fmt"
	"strings"
	"testing"
)

// wildcardFieldsConfig is n webhooks on every resource and subresource,
// each with conditions that read kind-specific fields.
func wildcardFieldsConfig(t *testing.T, n int) *Config {
	var doc strings.Builder
	doc.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: bench}\nwebhooks:\n")
	for i := range n {
		fmt.Fprintf(&doc, `- name: w%d.example.com
  clientConfig: {url: "https://hooks.example.com/%d"}
  matchConditions:
  - {name: a, expression: 'object.metadata.name != "w%d" && object.spec.replicas > 1'}
  - {name: b, expression: 'request.resource.resource == "pods" ? object.spec.nodeName != "" : true'}
  rules:
  - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*", "*/*"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`, i, i, i)
	}
	return decodeWebhookYAML(t, doc.String())
}

// A wildcard webhook is checked against every served kind: kinds without
// spec, and kinds whose spec has no replicas, are named; the ternary
// routes the pods-only read, except for the pods subresources that carry
// another kind.
func TestMatchConditionFieldsWildcard(t *testing.T) {
	got := runRuleFindings(t, "match-condition-fields", wildcardFieldsConfig(t, 1), nil, nil)
	if len(got) != 3 {
		t.Fatalf("got %d findings, want 3:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, want := range []string{
		"`object.spec` fails with \"no such key\" for bindings, ",
		"`object.spec.replicas` fails with \"no such key\" for ",
		"`object.spec` fails with \"no such key\" for pods/binding, pods/eviction: Binding (v1), Eviction (policy/v1) have no field \"spec\" there",
	} {
		if !strings.Contains(got[i], want) {
			t.Errorf("finding %d = %s\nwant it to contain %s", i, got[i], want)
		}
	}
	for _, f := range got {
		if strings.Contains(f, "<input>") || len(f) > 400 {
			t.Errorf("message too long or with CEL positions: %s", f)
		}
	}
}

// BenchmarkMatchConditionFields types the conditions of 20 wildcard
// webhooks against every served kind (the types are built once per process).
func BenchmarkMatchConditionFields(b *testing.B) {
	c := wildcardFieldsConfig(&testing.T{}, 20)
	r := MustLookup("match-condition-fields")
	b.ResetTimer()
	for range b.N {
		NewPass(r, c, nil, nil, func(Finding) {}).Run()
	}
}
