package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func TestMessageNamesTheWebhookOnce(t *testing.T) {
	obj := &diag.Object{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "policy"}
	ds := []diag.Diagnostic{
		{Span: diag.Span{File: "w.yaml", Line: 3, Column: 3}, Severity: diag.Warning, Rule: "ca-bundle", Object: obj, Webhook: "pods.x.example.com",
			Message: `webhook "pods.x.example.com": empty caBundle; set caBundle`},
		{Span: diag.Span{File: "w.yaml", Line: 4, Column: 3}, Severity: diag.Warning, Rule: "timeout-too-long", Object: obj, Webhook: "pods.x.example.com",
			Message: `webhook "pods.x.example.com" fails closed with timeoutSeconds 30`},
		{Span: diag.Span{File: "w.yaml", Line: 5, Column: 3}, Severity: diag.Warning, Rule: "ca-bundle", Object: obj, Webhook: "pods.x.example.com",
			Message: `webhook "pods.x.example.com" and 2 more: empty caBundle`},
		{Span: diag.Span{File: "w.yaml", Line: 6, Column: 3}, Severity: diag.Error, Rule: "schema", Object: obj, Webhook: "pods.x.example.com",
			Message: `unknown field "webhooks[0].x"`},
	}
	// (JUnit's failure element carries the message twice by design: its
	// message attribute and its text.)
	for _, name := range []string{"text", "markdown", "github", "checkstyle", "gitlab"} {
		f, err := New(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := f.Format(&buf, &Run{Diagnostics: ds, Files: 1}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, line := range strings.Split(buf.String(), "\n") {
			if c := strings.Count(line, "pods.x.example.com"); c > 1 {
				t.Errorf("%s: a line names the webhook %d times: %s", name, c, line)
			}
			if strings.Contains(line, "pods.x.example.com") {
				n++
			}
		}
		if name == "text" && n != 1 {
			t.Errorf("text names the webhook on %d lines, want 1 (the header):\n%s", n, buf.String())
		}
	}
}

// The header line comes again when the webhook, the object or the file
// changes, and not otherwise.
func TestTextHeaders(t *testing.T) {
	a := &diag.Object{Kind: "ValidatingWebhookConfiguration", Name: "a"}
	b := &diag.Object{Kind: "MutatingWebhookConfiguration", Name: "b"}
	ds := []diag.Diagnostic{
		{Span: diag.Span{File: "1.yaml", Line: 1, Column: 1}, Severity: diag.Warning, Rule: "r", Message: "m1", Object: a, Webhook: "w1"},
		{Span: diag.Span{File: "1.yaml", Line: 2, Column: 1}, Severity: diag.Warning, Rule: "r", Message: "m2", Object: a, Webhook: "w1"},
		{Span: diag.Span{File: "1.yaml", Line: 3, Column: 1}, Severity: diag.Warning, Rule: "r", Message: "m3", Object: a, Webhook: "w2"},
		{Span: diag.Span{File: "1.yaml", Line: 4, Column: 1}, Severity: diag.Warning, Rule: "r", Message: "m4", Object: a},
		{Span: diag.Span{File: "1.yaml", Line: 5, Column: 1}, Severity: diag.Warning, Rule: "r", Message: "m5", Object: b, Webhook: "w1"},
		{Span: diag.Span{File: "2.yaml", Line: 1, Column: 1}, Severity: diag.Warning, Rule: "r", Message: "m6", Object: b, Webhook: "w1"},
		{Span: diag.Span{File: "2.yaml", Line: 2, Column: 1}, Severity: diag.Error, Rule: "yaml-syntax", Message: "m7"},
	}
	got := textOutput(t, false, ds, nil)
	want := `1.yaml: In webhook "w1" of ValidatingWebhookConfiguration "a":
1.yaml:1:1: warning: m1 [r]
1.yaml:2:1: warning: m2 [r]
1.yaml: In webhook "w2" of ValidatingWebhookConfiguration "a":
1.yaml:3:1: warning: m3 [r]
1.yaml: In ValidatingWebhookConfiguration "a":
1.yaml:4:1: warning: m4 [r]
1.yaml: In webhook "w1" of MutatingWebhookConfiguration "b":
1.yaml:5:1: warning: m5 [r]
2.yaml: In webhook "w1" of MutatingWebhookConfiguration "b":
2.yaml:1:1: warning: m6 [r]
2.yaml:2:1: error: m7 [yaml-syntax]

1 error, 6 warnings in 2 files
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
