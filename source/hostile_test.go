package source_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

const badWebhook = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: bad
webhooks:
- name: a.example.com
  sideEffects: Unknown
  admissionReviewVersions: ["v1"]
  clientConfig:
    url: https://a.example.com/validate
`

// Template text that is data or a comment does not hide a file's
// findings; a templated document hides only itself. Each case must keep
// an error, so --fail-on error fails.
func TestTemplatesHideOnlyThemselves(t *testing.T) {
	cases := []struct {
		name, text string
		rules      []string // rules reported, in file order
	}{
		{"syntax error with {{ in a quoted value",
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  t: \"{{ .Values.x }}\"\n  bad: [\n",
			[]string{rules.YAMLSyntaxRule}},
		{"syntax error with {{ in a comment",
			"# render with {{ .Values.x }}\nkind: A\n  bad: : :\n",
			[]string{rules.YAMLSyntaxRule}},
		{"webhook error beside a template document",
			badWebhook + "---\n{{- if .Values.x }}\nkind: ConfigMap\n{{- end }}\n",
			// dry-run-side-effects is explained by the server error on the same field (lint/causes.go).
			[]string{"side-effects-value", rules.HelmTemplateRule}},
		{"template document before a syntax error",
			"kind: A\nname: {{ .Values.n }}\n---\nkind: B\n  bad: : :\n",
			[]string{rules.HelmTemplateRule, rules.YAMLSyntaxRule}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			res := run(t, []string{p}, source.Options{})
			var got []string
			for _, d := range res.Diagnostics {
				if len(got) == 0 || got[len(got)-1] != d.Rule {
					got = append(got, d.Rule)
				}
			}
			if strings.Join(got, " ") != strings.Join(c.rules, " ") {
				t.Errorf("got %v, want %v:%s", got, c.rules, dump(res.Diagnostics))
			}
		})
	}
}

// An oversized file with template text is reported as oversized.
func TestOversizedTemplateKeepsItsSizeFinding(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.yaml")
	data := []byte("# {{ .Values.x }}\n" + strings.Repeat("#", manifest.MaxFileSize))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, []string{p}, source.Options{})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Rule != rules.YAMLSyntaxRule {
		t.Errorf("got %s", dump(res.Diagnostics))
	}
}

// A kustomization whose resource is an alias bomb is reported at the
// bomb, and its files are still linted one by one.
func TestKustomizeAliasBombIsAFinding(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		b.WriteString("  a" + itoa(i) + ": &a" + itoa(i) + " [" + strings.Repeat("*a"+itoa(i-1)+", ", 9) + "*a" + itoa(i-1) + "]\n")
	}
	write("kustomization.yaml", "resources:\n- bomb.yaml\n- webhook.yaml\n")
	write("bomb.yaml", b.String())
	write("webhook.yaml", badWebhook)
	res := run(t, []string{dir}, source.Options{})
	if k := find(res.Diagnostics, rules.KustomizeBuildRule, "bomb.yaml"); len(k) != 1 || !strings.Contains(k[0].Message, "linted alone") {
		t.Errorf("no positioned kustomize-build finding on the bomb:%s", dump(res.Diagnostics))
	}
	if len(find(res.Diagnostics, "side-effects-value", "webhook.yaml")) != 1 {
		t.Errorf("the other resource was not linted:%s", dump(res.Diagnostics))
	}
}
