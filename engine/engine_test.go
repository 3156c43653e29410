package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

func TestParseAndInvalid(t *testing.T) {
	for _, c := range []struct {
		text, sep, comment string
		rules              []string
		reason, invalid    string
	}{
		{" self-deadlock, timeout-too-long -- the backend is outside", "--", "#",
			[]string{"self-deadlock", "timeout-too-long"}, "the backend is outside", ""},
		{"self-deadlock: runs outside the cluster", ":", "#", []string{"self-deadlock"}, "runs outside the cluster", ""},
		{" -- why", "--", "//", nil, "why", "suppression names no rule; write `// webhooklint:ignore <rule> -- <reason>`"},
		{" self-deadlock", "--", "#", []string{"self-deadlock"}, "",
			"suppression of self-deadlock gives no reason; write `-- <why this is safe>` after the rule name"},
		{" self-deadlock --  ", "--", "#", []string{"self-deadlock"}, "",
			"suppression of self-deadlock gives no reason; write `-- <why this is safe>` after the rule name"},
		{" self-deadlok -- typo", "--", "#", []string{"self-deadlok"}, "typo",
			`suppression names unknown rule "self-deadlok" (see webhooklint --list-rules)`},
	} {
		p := Parse(c.text, c.sep)
		if !slices.Equal(p.Rules, c.rules) || p.Reason != c.reason {
			t.Errorf("Parse(%q) = %q, %q; want %q, %q", c.text, p.Rules, p.Reason, c.rules, c.reason)
		}
		if got := p.Invalid(c.comment); got != c.invalid {
			t.Errorf("Parse(%q).Invalid:\n got  %q\n want %q", c.text, got, c.invalid)
		}
	}
}

func TestApply(t *testing.T) {
	ds := []diag.Diagnostic{
		{Rule: "self-deadlock", Path: "webhooks[0]"},
		{Rule: "timeout-too-long", Path: "webhooks[0].timeoutSeconds"},
		{Rule: "self-deadlock", Path: "webhooks[1]"},
	}
	// Covers checks the rule too, as each front end's does.
	onFirst := func(rule string) func(*diag.Diagnostic) bool {
		return func(d *diag.Diagnostic) bool { return d.Rule == rule && strings.HasPrefix(d.Path, "webhooks[0]") }
	}
	sups := []*Suppression{
		{Rules: []string{"self-deadlock"}, Covers: onFirst("self-deadlock"), What: "suppression", Where: "on this node",
			At: diag.Diagnostic{Span: diag.Span{File: "a.yaml", Line: 3}}},
		{Rules: []string{"ca-bundle"}, Covers: onFirst("ca-bundle"), What: "suppression", Where: "on this node",
			At: diag.Diagnostic{Span: diag.Span{File: "a.yaml", Line: 7}, Path: "webhooks[0]"}},
		{Rules: []string{"timeout-too-long"}, Covers: func(*diag.Diagnostic) bool { return false },
			What: "configured suppression", Where: "in any file", At: diag.Diagnostic{Span: diag.Span{File: ".webhooklint.yaml", Line: 9}}},
	}
	kept, unused := Apply(slices.Clone(ds), sups, &Selection{
		Enabled:  func(r string) bool { return r != "timeout-too-long" },
		Severity: map[string]diag.Severity{rules.UnusedSuppressionRule: diag.Error},
	})
	if len(kept) != 2 || kept[0].Path != "webhooks[0].timeoutSeconds" || kept[1].Path != "webhooks[1]" {
		t.Errorf("kept %+v", kept)
	}
	// The ca-bundle suppression is unused; the timeout-too-long one too,
	// but its rule is off, so its silence proves nothing.
	want := diag.Diagnostic{Span: diag.Span{File: "a.yaml", Line: 7}, Path: "webhooks[0]", Severity: diag.Error, Rule: rules.UnusedSuppressionRule,
		Message: "suppression of ca-bundle matches no finding on this node; remove it"}
	if len(unused) != 1 || unused[0].Message != want.Message || diag.Compare(unused[0], want) != 0 || unused[0].Severity != diag.Error {
		t.Errorf("unused = %+v, want %+v", unused, want)
	}
	if _, unused := Apply(slices.Clone(ds), sups, &Selection{Enabled: func(r string) bool { return r != rules.UnusedSuppressionRule }}); len(unused) != 0 {
		t.Errorf("unused-suppression is off, yet reported %+v", unused)
	}
}

func TestSelection(t *testing.T) {
	var all *Selection
	if !all.On("self-deadlock") {
		t.Error("a nil selection must enable every rule")
	}
	s := &Selection{
		Enabled:  func(r string) bool { return r != "ca-bundle" },
		Severity: map[string]diag.Severity{"self-deadlock": diag.Error},
	}
	got := s.Select([]diag.Diagnostic{
		{Rule: "ca-bundle", Severity: diag.Warning},
		{Rule: "self-deadlock", Severity: diag.Warning},
		{Rule: "self-deadlock", Severity: diag.Info, DependsOnOverlay: true},
	})
	if len(got) != 2 || got[0].Severity != diag.Error || got[1].Severity != diag.Info {
		t.Errorf("Select = %+v", got)
	}
	rs := s.Rules(rules.All(), func(r *rules.Rule) bool { return r.Check != nil })
	if slices.ContainsFunc(rs, func(r *rules.Rule) bool { return r.Name == "ca-bundle" || r.Check == nil }) || len(rs) == 0 {
		t.Errorf("Rules kept a disabled rule or one without Check")
	}
	if got := s.SeverityOf(rules.MustLookup("self-deadlock")); got != diag.Error {
		t.Errorf("SeverityOf = %v, want the override", got)
	}
}

func TestRunGuardsPanics(t *testing.T) {
	boom := &rules.Rule{Name: "boom", Check: func(*rules.Pass) { panic("bug") }}
	calm := &rules.Rule{Name: "calm", Check: func(p *rules.Pass) { p.Reportf(nil, "seen") }}
	var got []string
	c := &rules.Config{Kind: rules.Validating}
	panics := Run([]*rules.Rule{boom, calm}, func(r *rules.Rule) *rules.Pass {
		return rules.NewPass(r, c, &rules.Inventory{Configs: []*rules.Config{c}}, rules.DefaultSettings(),
			func(f rules.Finding) { got = append(got, f.Rule+": "+f.Message) })
	})
	if len(panics) != 1 || panics[0].Rule != "boom" || panics[0].Value != "bug" || len(panics[0].Stack) == 0 {
		t.Errorf("panics = %+v", panics)
	}
	if !slices.Equal(got, []string{"calm: seen"}) {
		t.Errorf("the rule after the panic ran with findings %q", got)
	}
}
