package fix_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/fix"
)

// TestInsertKeepsStyle makes the fixes that insert a missing field
// (sideEffects, admissionReviewVersions, a namespaceSelector excluding
// kube-system) in each way a webhook's fields
// can be written, and checks the result byte for byte: a block mapping
// gets lines at its siblings' indentation (before the first key where
// the keys are sorted, as controller-gen writes them), lists in the
// file's style, CRLF kept; a flow mapping and JSON an entry with their
// separators; an anchored webhook no fix.
func TestInsertKeepsStyle(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"block.yaml",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: a\n" +
				"webhooks:\n" +
				"- name: a.example.com\n" +
				"  clientConfig:\n" +
				"    url: https://a.example.com/v # the backend\n" +
				"  rules:\n" +
				"  - operations: [CREATE]\n" +
				"    apiGroups: [apps]\n" +
				"    apiVersions: [v1]\n" +
				"    resources: [deployments]\n" +
				"\n" +
				"  # why it fails closed\n" +
				"  failurePolicy: Fail\n" +
				"",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: a\n" +
				"webhooks:\n" +
				"- name: a.example.com\n" +
				"  clientConfig:\n" +
				"    url: https://a.example.com/v # the backend\n" +
				"  rules:\n" +
				"  - operations: [CREATE]\n" +
				"    apiGroups: [apps]\n" +
				"    apiVersions: [v1]\n" +
				"    resources: [deployments]\n" +
				"  namespaceSelector:\n" +
				"    matchExpressions:\n" +
				"    - key: kubernetes.io/metadata.name\n" +
				"      operator: NotIn\n" +
				"      values: [kube-system, kube-node-lease]\n" +
				"\n" +
				"  # why it fails closed\n" +
				"  failurePolicy: Fail\n" +
				"  sideEffects: NoneOnDryRun\n" +
				"  admissionReviewVersions: [v1]\n" +
				""},
		{"sorted.yaml",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: a\n" +
				"webhooks:\n" +
				"  - clientConfig:\n" +
				"      url: https://a.example.com/v\n" +
				"    failurePolicy: Fail\n" +
				"    name: a.example.com\n" +
				"    rules:\n" +
				"      - apiGroups:\n" +
				"          - apps\n" +
				"        apiVersions:\n" +
				"          - v1\n" +
				"        operations:\n" +
				"          - CREATE\n" +
				"        resources:\n" +
				"          - deployments\n" +
				"",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: a\n" +
				"webhooks:\n" +
				"  - admissionReviewVersions:\n" +
				"      - v1\n" +
				"    clientConfig:\n" +
				"      url: https://a.example.com/v\n" +
				"    failurePolicy: Fail\n" +
				"    name: a.example.com\n" +
				"    namespaceSelector:\n" +
				"      matchExpressions:\n" +
				"        - key: kubernetes.io/metadata.name\n" +
				"          operator: NotIn\n" +
				"          values:\n" +
				"            - kube-system\n" +
				"            - kube-node-lease\n" +
				"    rules:\n" +
				"      - apiGroups:\n" +
				"          - apps\n" +
				"        apiVersions:\n" +
				"          - v1\n" +
				"        operations:\n" +
				"          - CREATE\n" +
				"        resources:\n" +
				"          - deployments\n" +
				"    sideEffects: NoneOnDryRun\n" +
				""},
		{"pretty.json",
			"{\n" +
				"  \"apiVersion\": \"admissionregistration.k8s.io/v1\",\n" +
				"  \"kind\": \"ValidatingWebhookConfiguration\",\n" +
				"  \"metadata\": {\"name\": \"a\"},\n" +
				"  \"webhooks\": [\n" +
				"    {\n" +
				"      \"name\": \"a.example.com\",\n" +
				"      \"clientConfig\": {\"url\": \"https://a.example.com/v\"},\n" +
				"      \"rules\": [{\"operations\": [\"CREATE\"], \"apiGroups\": [\"apps\"], \"apiVersions\": [\"v1\"], \"resources\": [\"deployments\"]}]\n" +
				"    }\n" +
				"  ]\n" +
				"}\n" +
				"",
			"{\n" +
				"  \"apiVersion\": \"admissionregistration.k8s.io/v1\",\n" +
				"  \"kind\": \"ValidatingWebhookConfiguration\",\n" +
				"  \"metadata\": {\"name\": \"a\"},\n" +
				"  \"webhooks\": [\n" +
				"    {\n" +
				"      \"name\": \"a.example.com\",\n" +
				"      \"clientConfig\": {\"url\": \"https://a.example.com/v\"},\n" +
				"      \"rules\": [{\"operations\": [\"CREATE\"], \"apiGroups\": [\"apps\"], \"apiVersions\": [\"v1\"], \"resources\": [\"deployments\"]}],\n" +
				"      \"namespaceSelector\": {\n" +
				"        \"matchExpressions\": [\n" +
				"          {\n" +
				"            \"key\": \"kubernetes.io/metadata.name\",\n" +
				"            \"operator\": \"NotIn\",\n" +
				"            \"values\": [\n" +
				"              \"kube-system\",\n" +
				"              \"kube-node-lease\"\n" +
				"            ]\n" +
				"          }\n" +
				"        ]\n" +
				"      },\n" +
				"      \"sideEffects\": \"NoneOnDryRun\",\n" +
				"      \"admissionReviewVersions\": [\n" +
				"        \"v1\"\n" +
				"      ]\n" +
				"    }\n" +
				"  ]\n" +
				"}\n" +
				""},
		// The last field's value spans lines: the entry goes after its
		// closing brackets, not after its last scalar (found by the fuzz
		// differential set, fuzz-json-006).
		{"pretty-last.json",
			"{\n" +
				"  \"apiVersion\": \"admissionregistration.k8s.io/v1\",\n" +
				"  \"kind\": \"ValidatingWebhookConfiguration\",\n" +
				"  \"metadata\": {\"name\": \"a\"},\n" +
				"  \"webhooks\": [\n" +
				"    {\n" +
				"      \"name\": \"a.example.com\",\n" +
				"      \"clientConfig\": {\"url\": \"https://a.example.com/v\"},\n" +
				"      \"sideEffects\": \"None\",\n" +
				"      \"admissionReviewVersions\": [\"v1\"],\n" +
				"      \"rules\": [\n" +
				"        {\n" +
				"          \"operations\": [\"CREATE\"], \"apiGroups\": [\"apps\"], \"apiVersions\": [\"v1\"],\n" +
				"          \"resources\": [\n" +
				"            \"deployments\"\n" +
				"          ]\n" +
				"        } # a comment between the brackets\n" +
				"      ]\n" +
				"    }\n" +
				"  ]\n" +
				"}\n" +
				"",
			"{\n" +
				"  \"apiVersion\": \"admissionregistration.k8s.io/v1\",\n" +
				"  \"kind\": \"ValidatingWebhookConfiguration\",\n" +
				"  \"metadata\": {\"name\": \"a\"},\n" +
				"  \"webhooks\": [\n" +
				"    {\n" +
				"      \"name\": \"a.example.com\",\n" +
				"      \"clientConfig\": {\"url\": \"https://a.example.com/v\"},\n" +
				"      \"sideEffects\": \"None\",\n" +
				"      \"admissionReviewVersions\": [\"v1\"],\n" +
				"      \"rules\": [\n" +
				"        {\n" +
				"          \"operations\": [\"CREATE\"], \"apiGroups\": [\"apps\"], \"apiVersions\": [\"v1\"],\n" +
				"          \"resources\": [\n" +
				"            \"deployments\"\n" +
				"          ]\n" +
				"        } # a comment between the brackets\n" +
				"      ],\n" +
				"      \"namespaceSelector\": {\n" +
				"        \"matchExpressions\": [\n" +
				"          {\n" +
				"            \"key\": \"kubernetes.io/metadata.name\",\n" +
				"            \"operator\": \"NotIn\",\n" +
				"            \"values\": [\n" +
				"              \"kube-system\",\n" +
				"              \"kube-node-lease\"\n" +
				"            ]\n" +
				"          }\n" +
				"        ]\n" +
				"      }\n" +
				"    }\n" +
				"  ]\n" +
				"}\n" +
				""},
		{"mini.json",
			"{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"a\"},\"webhooks\":[{\"name\":\"a.example.com\",\"clientConfig\":{\"url\":\"https://a.example.com/v\"},\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"resources\":[\"deployments\"]}]}]}",
			"{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":\"a\"},\"webhooks\":[{\"name\":\"a.example.com\",\"clientConfig\":{\"url\":\"https://a.example.com/v\"},\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"apps\"],\"apiVersions\":[\"v1\"],\"resources\":[\"deployments\"]}],\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"NotIn\",\"values\":[\"kube-system\",\"kube-node-lease\"]}]},\"sideEffects\":\"NoneOnDryRun\",\"admissionReviewVersions\":[\"v1\"]}]}"},
		{"flow.yaml",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata: {name: a}\n" +
				"webhooks:\n" +
				"- {name: a.example.com, clientConfig: {url: 'https://a.example.com/v'}, rules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]}\n" +
				"",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata: {name: a}\n" +
				"webhooks:\n" +
				"- {name: a.example.com, clientConfig: {url: 'https://a.example.com/v'}, rules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}], namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}]}, sideEffects: NoneOnDryRun, admissionReviewVersions: [v1]}\n" +
				""},
		{"anchor.yaml",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: a\n" +
				"webhooks:\n" +
				"- &w\n" +
				"  name: a.example.com\n" +
				"  clientConfig:\n" +
				"    url: https://a.example.com/v\n" +
				"",
			"apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: a\n" +
				"webhooks:\n" +
				"- &w\n" +
				"  name: a.example.com\n" +
				"  clientConfig:\n" +
				"    url: https://a.example.com/v\n" +
				""},
		{"crlf.yaml",
			"apiVersion: admissionregistration.k8s.io/v1\r\n" +
				"kind: ValidatingWebhookConfiguration\r\n" +
				"metadata:\r\n" +
				"  name: a\r\n" +
				"webhooks:\r\n" +
				"- name: a.example.com\r\n" +
				"  clientConfig:\r\n" +
				"    url: https://a.example.com/v",
			"apiVersion: admissionregistration.k8s.io/v1\r\n" +
				"kind: ValidatingWebhookConfiguration\r\n" +
				"metadata:\r\n" +
				"  name: a\r\n" +
				"webhooks:\r\n" +
				"- name: a.example.com\r\n" +
				"  clientConfig:\r\n" +
				"    url: https://a.example.com/v\r\n" +
				"  sideEffects: NoneOnDryRun\r\n" +
				"  admissionReviewVersions:\r\n" +
				"  - v1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fixAll(t, c.name, c.in, true); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// fixAll writes text to a file of that name and makes its fixes (with
// unsafe, the unsafe ones too) as --fix does, in rounds until none is
// left: two insertions at one place are made in two rounds, the second
// seeing the first. It returns the fixed text.
func fixAll(t *testing.T, name, text string, unsafe bool) string {
	t.Helper()
	name = filepath.Join(t.TempDir(), name)
	testkit.WriteFile(t, name, []byte(text))
	for round := 0; ; round++ {
		edits, n := fix.Select(lintFile(t, name), unsafe)
		if n == 0 {
			break
		}
		if round == 3 {
			t.Fatalf("still %d fixes after %d rounds", n, round)
		}
		text, _ := os.ReadFile(name)
		out, err := fix.Apply(text, edits[name])
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, name, out)
	}
	got, _ := os.ReadFile(name)
	return string(got)
}
