package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

func TestParseSuppressions(t *testing.T) {
	useFakeRules(t)
	c, err := Parse("cfg/.webhooklint.yaml", []byte(`
inlineSuppressions: false
suppressions:
  - rule: timeout-too-long
    paths: ["deploy/**"]
    webhook: a.example.com
    reason: " slow on purpose "
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.InlineSuppressions == nil || *c.InlineSuppressions {
		t.Errorf("inlineSuppressions = %v", c.InlineSuppressions)
	}
	want := Suppression{Rule: "timeout-too-long", Paths: []string{"deploy/**"}, Webhook: "a.example.com", Reason: "slow on purpose", Span: diag.Span{Line: 4, Column: 5}}
	if len(c.Suppressions) != 1 || c.Suppressions[0].Rule != want.Rule || c.Suppressions[0].Reason != want.Reason ||
		c.Suppressions[0].Line != want.Line || c.Suppressions[0].Column != want.Column || c.Suppressions[0].Webhook != want.Webhook {
		t.Errorf("suppressions = %+v, want %+v", c.Suppressions, want)
	}

	for _, tc := range []struct{ in, want string }{
		{"inlineSuppressions: no\n", `f.yaml:1:21: inlineSuppressions must be true or false, not the string "no"`},
		{"suppressions:\n  - rule: timeout-too-long\n", `f.yaml:2:5: the suppression of timeout-too-long gives no reason; add reason: <why this is safe>`},
		{"suppressions:\n  - reason: x\n", `f.yaml:2:5: a suppressions entry needs a rule`},
		{"suppressions:\n  - {rule: timeout-to-long, reason: x}\n", `f.yaml:2:12: unknown rule "timeout-to-long" (did you mean "timeout-too-long"?)`},
		{"suppressions:\n  - {rule: timeout-too-long, reason: x, path: a}\n", `f.yaml:2:41: unknown key "path" in a suppressions entry (want rule, paths, webhook or reason)`},
		{"suppressions:\n  - {rule: timeout-too-long, reason: x, paths: [../a]}\n", `f.yaml:2:49: paths: "../a": globs are relative to the configuration file's folder and stay below it`},
		{"suppressions: {rule: x}\n", `f.yaml:1:15: suppressions must be a list, not a mapping`},
	} {
		_, err := Parse("f.yaml", []byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

func TestSuppress(t *testing.T) {
	dir := t.TempDir()
	c := &Config{File: filepath.Join(dir, ".webhooklint.yaml"), Dir: dir, Suppressions: []Suppression{
		{Rule: "timeout-too-long", Paths: []string{"deploy"}, Webhook: "a.example.com", Reason: "r", Span: diag.Span{Line: 3, Column: 5}},
		{Rule: "ca-bundle", Reason: "r", Span: diag.Span{Line: 7, Column: 5}},
		{Rule: "timeout-too-long", Paths: []string{"nowhere/*.yaml"}, Reason: "r", Span: diag.Span{Line: 9, Column: 5}},
	}}
	in := filepath.Join(dir, "deploy", "x", "w.yaml")
	out := filepath.Join(dir, "other.yaml")
	ds := []diag.Diagnostic{
		{Span: diag.Span{File: in, Line: 1}, Rule: "timeout-too-long", Webhook: "a.example.com", Severity: diag.Warning},  // first entry
		{Span: diag.Span{File: in, Line: 2}, Rule: "timeout-too-long", Webhook: "b.example.com", Severity: diag.Warning},  // other webhook: kept
		{Span: diag.Span{File: out, Line: 3}, Rule: "timeout-too-long", Webhook: "a.example.com", Severity: diag.Warning}, // other file: kept
		{Span: diag.Span{File: out, Line: 4}, Rule: "ca-bundle", Severity: diag.Warning},                                  // every file
		{Span: diag.Span{File: ""}, Rule: "timeout-too-long", Webhook: "a.example.com", Severity: diag.Warning},           // live object: no file, kept
	}
	got := c.Suppress(ds)
	var lines []string
	for _, d := range got {
		lines = append(lines, strings.TrimPrefix(d.File, dir)+":"+d.Rule+":"+d.Message)
	}
	want := []string{
		":timeout-too-long:",
		"/.webhooklint.yaml:unused-suppression:configured suppression of timeout-too-long matches no finding in nowhere/*.yaml; remove it",
		"/deploy/x/w.yaml:timeout-too-long:",
		"/other.yaml:timeout-too-long:",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Suppress:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// A disabled unused-suppression rule reports nothing.
	off := false
	c.Rules = map[string]Rule{"unused-suppression": {Enabled: &off}}
	if got := c.Suppress(ds); len(got) != 3 {
		t.Errorf("with unused-suppression disabled: %d findings, want 3", len(got))
	}
}
