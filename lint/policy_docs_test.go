package lint_test

import (
	"testing"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// TestPolicyRuleDocExamples: the documentation examples of the rules on
// admission policies are whole manifests; the Bad one must trigger its
// rule and the Good one must stay clean (of every finding). A rule that
// checks webhook configurations too (match-condition-runtime) has webhook
// examples, which the webhook rules' example test runs; its policy cases
// are fixtures.
func TestPolicyRuleDocExamples(t *testing.T) {
	n := 0
	for _, r := range rules.All() {
		if r.CheckPolicy == nil || r.Check != nil {
			continue
		}
		n++
		run := func(example string, only bool) []string {
			f := manifest.Parse(r.Name+".yaml", []byte(example))
			res := lint.Files([]*manifest.File{f}, lint.Options{Enabled: func(name string) bool { return !only || name == r.Name }})
			var out []string
			for _, d := range res.Diagnostics {
				out = append(out, d.Rule+": "+d.Message)
			}
			return out
		}
		if bad := run(r.Doc.Bad, true); len(bad) == 0 {
			t.Errorf("%s: the Bad example produces no finding", r.Name)
		}
		if good := run(r.Doc.Good, false); len(good) != 0 {
			t.Errorf("%s: the Good example produces %q", r.Name, good)
		}
	}
	if n == 0 {
		t.Error("no rule checks admission policies")
	}
}
