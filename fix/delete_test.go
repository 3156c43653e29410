package fix_test

import "testing"

// TestDeleteKeepsStyle makes review-versions' safe fix (remove a
// duplicate version) in each way a list can be written: a block entry's
// line, a one-line flow entry with its comma, and in a flow list written
// one entry a line (pretty JSON) the entry's line, or for the last entry
// the entry and the comma before it (the JSON cases were found by the
// fuzz differential set, fuzz-json-023).
func TestDeleteKeepsStyle(t *testing.T) {
	const head = "apiVersion: admissionregistration.k8s.io/v1\n" +
		"kind: ValidatingWebhookConfiguration\n" +
		"metadata: {name: a}\n" +
		"webhooks:\n" +
		"- name: a.example.com\n" +
		"  clientConfig: {url: 'https://a.example.com/v'}\n" +
		"  sideEffects: None\n"
	const jsonHead = "{\n" +
		"  \"apiVersion\": \"admissionregistration.k8s.io/v1\",\n" +
		"  \"kind\": \"ValidatingWebhookConfiguration\",\n" +
		"  \"metadata\": {\"name\": \"a\"},\n" +
		"  \"webhooks\": [\n" +
		"    {\n" +
		"      \"name\": \"a.example.com\",\n" +
		"      \"clientConfig\": {\"url\": \"https://a.example.com/v\"},\n" +
		"      \"sideEffects\": \"None\",\n"
	const jsonTail = "    }\n" +
		"  ]\n" +
		"}\n"
	for _, c := range []struct{ name, in, want string }{
		{"block.yaml",
			head + "  admissionReviewVersions:\n  - v1\n  - v1 # again\n  - v1beta1\n",
			head + "  admissionReviewVersions:\n  - v1\n  - v1beta1\n"},
		{"flow.yaml",
			head + "  admissionReviewVersions: [v1, \"v1\", v1beta1]\n",
			head + "  admissionReviewVersions: [v1, v1beta1]\n"},
		{"middle.json",
			jsonHead + "      \"admissionReviewVersions\": [\n        \"v1\",\n        \"v1\",\n        \"v1beta1\"\n      ]\n" + jsonTail,
			jsonHead + "      \"admissionReviewVersions\": [\n        \"v1\",\n        \"v1beta1\"\n      ]\n" + jsonTail},
		{"last.json",
			jsonHead + "      \"admissionReviewVersions\": [\n        \"v1\",\n        \"v1beta1\",\n        \"v1\"\n      ]\n" + jsonTail,
			jsonHead + "      \"admissionReviewVersions\": [\n        \"v1\",\n        \"v1beta1\"\n      ]\n" + jsonTail},
		// A comment after the comma stays, and with it the entry.
		{"comment.json",
			jsonHead + "      \"admissionReviewVersions\": [\n        \"v1\",\n        \"v1\", # again\n        \"v1beta1\"\n      ]\n" + jsonTail,
			jsonHead + "      \"admissionReviewVersions\": [\n        \"v1\",\n        \"v1\", # again\n        \"v1beta1\"\n      ]\n" + jsonTail},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fixAll(t, c.name, c.in, false); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}
