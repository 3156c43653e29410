package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

func lintText(t *testing.T, text string) []diag.Diagnostic {
	t.Helper()
	res := LintUnit(Unit{Files: []*manifest.File{manifest.Parse("test.yaml", []byte(text))}}, Options{})
	if len(res.Internal) > 0 {
		t.Fatal(res.Internal[0])
	}
	return res.Diagnostics
}

func byRule(ds []diag.Diagnostic) map[string][]diag.Diagnostic {
	out := map[string][]diag.Diagnostic{}
	for _, d := range ds {
		out[d.Rule] = append(out[d.Rule], d)
	}
	return out
}

const v1beta1Config = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: ValidatingWebhookConfiguration
metadata:
  name: legacy
webhooks:
- name: defaults.example.com
  failurePolicy: Fail
  clientConfig:
    url: https://hooks.example.com/a
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
- name: explicit.example.com
  failurePolicy: Fail
  timeoutSeconds: 30
  sideEffects: Some
  admissionReviewVersions: [v1beta1]
  clientConfig:
    url: https://hooks.example.com/b
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
`

// Findings that follow from v1beta1 defaults are explained by
// unserved-api-version; values written out are not.
func TestV1beta1DefaultsAreExplainedByTheRemovedVersion(t *testing.T) {
	got := byRule(lintText(t, v1beta1Config))
	for _, rule := range []string{"timeout-too-long", "review-versions-order", "dry-run-side-effects"} {
		if len(got[rule]) != 1 || !strings.Contains(got[rule][0].Message, "explicit.example.com") {
			t.Errorf("%s: want only the finding on the written-out value, got %+v", rule, got[rule])
		}
	}
	roots := got["unserved-api-version"]
	// The rule names would make this message too long: only the count.
	if len(roots) != 1 || !strings.HasSuffix(roots[0].Message, "(also causes 3 findings)") {
		t.Errorf("root: %+v", roots)
	}
}

// A practice finding on a field the server rejects is explained by the
// error; one on another field is not.
func TestServerErrorExplainsPracticeFindingsOnItsField(t *testing.T) {
	ds := lintText(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: policy
webhooks:
- name: pods.example.com
  sideEffects: Unknown
  timeoutSeconds: 30
  admissionReviewVersions: [v1]
  clientConfig:
    url: https://hooks.example.com/a
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
`)
	got := byRule(ds)
	if len(got["dry-run-side-effects"]) != 0 {
		t.Errorf("dry-run-side-effects on the rejected sideEffects: %+v", got["dry-run-side-effects"])
	}
	if len(got["timeout-too-long"]) != 1 {
		t.Errorf("timeout-too-long is another field's: %+v", got["timeout-too-long"])
	}
	if e := got["side-effects-value"]; len(e) != 1 || !strings.HasSuffix(e[0].Message, "(also causes dry-run-side-effects)") {
		t.Errorf("root: %+v", e)
	}
}

// 20,000 aliased rules with the same mistake give a bounded output.
func TestRepeatedFindingsAreCapped(t *testing.T) {
	const n = 20000
	var b strings.Builder
	b.WriteString(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: generated
webhooks:
- name: many.example.com
  sideEffects: None
  admissionReviewVersions: [v1]
  failurePolicy: Ignore
  clientConfig:
    url: https://hooks.example.com/a
  rules:
  - &r {apiGroups: [""], apiVersions: [v1], operations: [BAD], resources: [configmaps]}
`)
	for range n - 1 {
		b.WriteString("  - *r\n")
	}
	got := byRule(lintText(t, b.String()))
	if len(got) == 0 {
		t.Fatal("no findings")
	}
	for rule, ds := range got {
		if len(ds) > rules.MaxPerCause+1 {
			t.Errorf("%s: %d findings, want at most %d", rule, len(ds), rules.MaxPerCause+1)
		}
		if len(ds) == rules.MaxPerCause+1 {
			last := ds[len(ds)-1]
			want := fmt.Sprintf("%d more %s findings like the %d above", n-rules.MaxPerCause, rule, rules.MaxPerCause)
			if !strings.HasPrefix(last.Message, want) || last.Severity != ds[0].Severity {
				t.Errorf("%s: summary %q (%s), want it to start %q", rule, last.Message, last.Severity, want)
			}
		}
	}
}

// unserved-api-version is an error for the servers that no longer serve
// v1beta1 (the apply fails), and a warning for a target that still does.
func TestV1beta1IsAnErrorFrom122(t *testing.T) {
	for _, tc := range []struct {
		kube string
		want diag.Severity
	}{{"1.37", diag.Error}, {"1.22", diag.Error}, {"1.21", diag.Warning}, {"1.16", diag.Warning}} {
		v, err := rules.ParseKubeVersion(tc.kube)
		if err != nil {
			t.Fatal(err)
		}
		s := rules.DefaultSettings()
		s.KubeVersion = v
		res := LintUnit(Unit{Files: []*manifest.File{manifest.Parse("test.yaml", []byte(v1beta1Config))}}, Options{Settings: s})
		roots := byRule(res.Diagnostics)["unserved-api-version"]
		if len(roots) != 1 || roots[0].Severity != tc.want {
			t.Errorf("--kube-version %s: want one %s, got %+v", tc.kube, tc.want, roots)
		}
	}
}
