package rules

import (
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// twinWebhooks is three webhooks with the same rules and conditions, the
// second failing open: the first condition reads a field pods do not
// have, the second a label that may be missing.
func twinWebhooks(t *testing.T) *Config {
	var doc strings.Builder
	doc.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: twins}\nwebhooks:\n")
	for _, policy := range []string{"Fail", "Ignore", "Fail"} {
		doc.WriteString(`- name: ` + strings.ToLower(policy) + `.example.com
  clientConfig: {url: "https://hooks.example.com/"}
  failurePolicy: ` + policy + `
  matchConditions:
  - {name: a, expression: 'object.spec.nodeNme != ""'}
  - {name: b, expression: "object.metadata.labels['app'] == 'web'"}
  rules:
  - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	}
	return decodeTestConfig(t, doc.String())
}

// A webhook's condition findings are remembered by its content, process
// wide, and reported at its own path: each of equal webhooks gets its
// own, a remembered run gives what the first gave, and both are what a
// unit with a CRD gives, whose webhooks are checked one by one.
func TestConditionFindingsRememberedByContent(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true}},
	}}
	c := twinWebhooks(t)
	first := runRuleFindings(t, "match-condition-fields", c, &Inventory{Configs: []*Config{c}}, nil)
	again := runRuleFindings(t, "match-condition-fields", c, &Inventory{Configs: []*Config{c}}, nil)
	withCRD := runRuleFindings(t, "match-condition-fields", c, &Inventory{Configs: []*Config{c}, CRDs: []*apiextensionsv1.CustomResourceDefinition{crd}}, nil)
	expectFindings(t, first,
		"webhooks[0].matchConditions[0].expression: fails: Pod (v1) has no field \"nodeNme\"",
		"webhooks[1].matchConditions[0].expression: fails: Pod (v1) has no field \"nodeNme\"",
		"webhooks[2].matchConditions[0].expression: fails: Pod (v1) has no field \"nodeNme\"")
	if !slices.Equal(again, first) || !slices.Equal(withCRD, first) {
		t.Errorf("remembered:\n%s\nwith a CRD:\n%s\nwant:\n%s", strings.Join(again, "\n"), strings.Join(withCRD, "\n"), strings.Join(first, "\n"))
	}

	// The failure policy is part of the content: failing open, the guarded
	// label read is harmless.
	for range 2 {
		expectFindings(t, runRuleFindings(t, "match-condition-runtime", c, &Inventory{Configs: []*Config{c}}, nil),
			"webhooks[0].matchConditions[1].expression: ",
			"webhooks[2].matchConditions[1].expression: ")
	}
}

// The server's validations and the selector verdicts remembered by
// content are given by the webhook's place: equal webhooks at different
// places each get their own paths, and a remembered run gives what the
// first gave.
func TestValidationsRememberedByPlace(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: places}\nwebhooks:\n")
	for _, name := range []string{"a", "b"} {
		doc.WriteString(`- name: ` + name + `.example.com
  clientConfig: {url: "https://hooks.example.com/"}
  namespaceSelector:
    matchExpressions:
    - {key: "bad key!", operator: In, values: [x]}
    - {key: env, operator: In, values: [prod]}
    - {key: env, operator: NotIn, values: [prod]}
  rules:
  - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "*"], resources: ["pods"]}
  sideEffects: None
  admissionReviewVersions: ["v1"]
`)
	}
	c := decodeTestConfig(t, doc.String())
	for _, rule := range []string{"label-selector", "rule-syntax", "selector-never-matches"} {
		first := runRuleFindings(t, rule, c, &Inventory{Configs: []*Config{c}}, nil)
		again := runRuleFindings(t, rule, c, &Inventory{Configs: []*Config{c}}, nil)
		if len(first) != 2 || !strings.Contains(first[0], "webhooks[0].") || !strings.Contains(first[1], "webhooks[1].") {
			t.Errorf("%s: want one finding on each webhook, got:\n%s", rule, strings.Join(first, "\n"))
		}
		if !slices.Equal(again, first) {
			t.Errorf("%s remembered:\n%s\nwant:\n%s", rule, strings.Join(again, "\n"), strings.Join(first, "\n"))
		}
	}
}
