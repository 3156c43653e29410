package lint

import (
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// A finding that rests on an assumption and is located where its fix goes
// keeps both related locations: the webhook it is about and the
// assumption, each where the finding was before it moved.
func TestInContextKeepsAssumptionWithCause(t *testing.T) {
	d := &manifest.Document{Kind: "ValidatingWebhookConfiguration", Name: "policy"}
	at := diag.Span{File: "webhook.yaml", Line: 7, Column: 3}
	dg := diag.Diagnostic{Span: at, Severity: diag.Warning, Path: "webhooks[0].clientConfig"}
	f := rules.Finding{
		Webhook: "check.example.com",
		Assumes: "assumed applied as written (no Service in the unit): name it in units.entries",
		Cause:   &rules.Cause{Object: diag.Object{Kind: "Deployment", Name: "backend"}, Path: "spec.replicas"},
	}
	inContext(&dg, f, &rules.Inventory{}, d, nil)
	if dg.Severity != diag.Info {
		t.Errorf("severity %v, want info", dg.Severity)
	}
	if dg.Path != "spec.replicas" || dg.Object == nil || dg.Object.Name != "backend" {
		t.Errorf("not moved to the cause: %+v", dg)
	}
	if len(dg.Related) != 2 {
		t.Fatalf("related %+v, want the webhook and the assumption", dg.Related)
	}
	for i, want := range []string{`webhook "check.example.com" in ValidatingWebhookConfiguration "policy"`, f.Assumes} {
		if r := dg.Related[i]; r.Message != want || r.Span != at || r.Path != "webhooks[0].clientConfig" {
			t.Errorf("related[%d] = %+v, want %q at %v webhooks[0].clientConfig", i, r, want, at)
		}
	}
}
