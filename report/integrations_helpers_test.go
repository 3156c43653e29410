package report

import (
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/rules"
)

// checkGolden compares got with testdata/<name>, or rewrites it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testkit.Golden(t, filepath.Join("testdata", name), got)
}

// Fixed rules, so goldens do not change when real rule docs are edited.
var testRules = []*rules.Rule{
	{
		Name: "timeout-too-long", Summary: "timeoutSeconds leaves callers waiting", Severity: diag.Warning,
		Category: rules.Practice, Since: "0.1.0",
		Doc: rules.Doc{
			Why:     "A slow webhook holds every matching request; 100% of them wait.",
			Bad:     "timeoutSeconds: 30\n",
			Good:    "timeoutSeconds: 5\n",
			Fix:     "Lower `timeoutSeconds`.",
			Sources: []string{"webhook-facts §C"},
		},
		Options: []rules.Option{{Name: "maxSeconds", Doc: "Longest acceptable timeout.", Default: 10}},
	},
	{
		Name: "invalid-failure-policy", Summary: "failurePolicy must be Fail or Ignore", Severity: diag.Error,
		Category: rules.Server, Since: "0.1.0",
		Doc: rules.Doc{Why: "The API server rejects the object."},
	},
}

var testObject = &diag.Object{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "pod-policy"}

// testDiagnostics exercises what formatters must get right: ordering,
// non-ASCII text, characters that need escaping, a file outside the base,
// a file-level finding, a finding without a file, an unregistered rule.
func testDiagnostics(base string) []diag.Diagnostic {
	return []diag.Diagnostic{
		{Span: diag.Span{File: filepath.Join(base, "deploy", "webhook.yaml"), Line: 12, Column: 21, EndLine: 12, EndColumn: 23},
			Severity: diag.Warning, Rule: "timeout-too-long", Message: "timeoutSeconds 30 is above 10%, callers: wait",
			Path: "webhooks[0].timeoutSeconds", Object: testObject, Webhook: "pods.example.com"},
		{Span: diag.Span{File: filepath.Join(base, "deploy", "webhook.yaml"), Line: 7, Column: 20, EndLine: 7, EndColumn: 26},
			Severity: diag.Error, Rule: "invalid-failure-policy",
			Message: "Unsupported value: \"Failé\": supported values: \"Fail\", \"Ignore\"\nsecond line",
			Path:    "webhooks[0].failurePolicy", Object: testObject, Webhook: "pods.example.com"},
		{Span: diag.Span{File: filepath.Join(base, "deploy", "multi line.yaml"), Line: 3, Column: 5, EndLine: 5, EndColumn: 2},
			Severity: diag.Info, Rule: "timeout-too-long", Message: "spans lines", Path: "webhooks[1]", Object: testObject},
		{Span: diag.Span{File: filepath.Join(base, "empty.yaml")}, Severity: diag.Error, Rule: "yaml-syntax", Message: "file-level problem"},
		{Span: diag.Span{File: "/elsewhere/outside.yaml", Line: 1, Column: 1, EndLine: 1, EndColumn: 5},
			Severity: diag.Warning, Rule: "timeout-too-long", Message: "outside the base", Object: testObject},
		{Severity: diag.Error, Rule: "invalid-failure-policy", Message: "live object", Path: "webhooks[2].failurePolicy",
			Object: &diag.Object{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration", Name: "live"}},
	}
}

// mapSources serves fixed file contents.
type mapSources map[string]string

func (m mapSources) get(file string) []byte {
	s, ok := m[file]
	if !ok {
		return nil
	}
	return []byte(s)
}

var testSources = mapSources{
	filepath.Join(testBase, "empty.yaml"): "kind: List\nitems: [ ü\n\n",
	// Line 7 has a tab and non-ASCII text before the marked value; line 12
	// is marked at its end.
	filepath.Join(testBase, "deploy", "webhook.yaml"): "1\n2\n3\n4\n5\n6\n" +
		"\t# é  failurePoli: Failé!\n" +
		"8\n9\n10\n11\n" +
		"    timeoutSeconds: 30\n",
	filepath.Join(testBase, "deploy", "multi line.yaml"): "a: 1\nb: 2\n  - c: |\n      x\n    y\n",
}
