package rules_test

import (
	"testing"

	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// TestPracticeDocExamplesAreValidInput loads the documentation examples of
// the issue-3 practice rules with the real loader: they must be clean
// YAML that passes strict decoding, as users will copy them.
func TestPracticeDocExamplesAreValidInput(t *testing.T) {
	for _, name := range []string{
		"ca-bundle", "client-url-host", "dry-run-side-effects", "namespace-selector-no-effect",
		"object-selector-bypass", "review-versions-order", "selector-never-matches", "service-reference",
		"timeout-budget", "timeout-too-long",
	} {
		r := rules.MustLookup(name)
		for kind, src := range map[string]string{"Bad": r.Doc.Bad, "Good": r.Doc.Good} {
			f := manifest.Parse(name+"-"+kind+".yaml", []byte(src))
			for _, d := range f.Diagnostics {
				t.Errorf("%s %s example: %s [%s]", name, kind, d.Message, d.Rule)
			}
			configs := 0
			for _, doc := range f.Docs {
				for _, d := range doc.Diagnostics {
					if d.Rule == manifest.RuleSyntax || d.Rule == manifest.RuleSchema {
						t.Errorf("%s %s example: %d: %s [%s]", name, kind, d.Line, d.Message, d.Rule)
					}
				}
				if doc.Config != nil {
					configs++
				}
			}
			if configs == 0 {
				t.Errorf("%s %s example holds no webhook configuration", name, kind)
			}
		}
	}
}
