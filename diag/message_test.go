package diag

import "testing"

func TestShortMessage(t *testing.T) {
	obj := &Object{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "policy"}
	ds := []Diagnostic{
		{Object: obj, Webhook: "pods.x.example.com", Message: `webhook "pods.x.example.com": empty caBundle; set caBundle`},
		{Object: obj, Webhook: "pods.x.example.com", Message: `webhook "pods.x.example.com" fails closed with timeoutSeconds 30`},
		{Object: obj, Webhook: "pods.x.example.com", Message: `webhook "pods.x.example.com" and 2 more: empty caBundle`},
		{Object: obj, Webhook: "pods.x.example.com", Message: `unknown field "webhooks[0].x"`},
	}
	wantMsg := []string{"empty caBundle; set caBundle", "webhook fails closed with timeoutSeconds 30", "this webhook and 2 more: empty caBundle", `unknown field "webhooks[0].x"`}
	for i, d := range ds {
		if got := ShortMessage(d); got != wantMsg[i] {
			t.Errorf("ShortMessage(%q) = %q, want %q", d.Message, got, wantMsg[i])
		}
	}
	// A long name the rule shortened to an excerpt is the same webhook.
	long := ds[0]
	long.Webhook = "default.validating.virtualmachine.v1alpha6.example.com"
	long.Message = `webhook "default.validating.virtualm…": empty caBundle`
	if got := ShortMessage(long); got != "empty caBundle" {
		t.Errorf("message of an excerpted name = %q", got)
	}
	long.Message = `webhook "default.other…": empty caBundle`
	if got := ShortMessage(long); got != long.Message {
		t.Errorf("message of another excerpt changed: %q", got)
	}
	// Another webhook's name, or a name in the middle, stays.
	other := ds[0]
	other.Webhook = "other.example.com"
	if ShortMessage(other) != other.Message {
		t.Errorf("message of another webhook changed: %q", ShortMessage(other))
	}
}
