package rules

import (
	"testing"
)

// practiceRulesOfIssue3 are the rules whose documentation examples are
// complete manifests: the bad one must trigger the rule and the good one
// must not, so the docs cannot drift from the code.
var practiceRulesOfIssue3 = []string{
	"ca-bundle", "client-url-host", "dry-run-side-effects", "namespace-selector-no-effect",
	"object-selector-bypass", "review-versions-order", "selector-never-matches", "service-reference",
	"timeout-budget", "timeout-too-long",
}

func TestPracticeDocExamples(t *testing.T) {
	for _, name := range practiceRulesOfIssue3 {
		r := MustLookup(name)
		if r.Category != Practice || r.Since != "0.1.0" {
			t.Errorf("%s: category %s since %s", name, r.Category, r.Since)
		}
		if bad := runRuleOn(t, name, r.Doc.Bad, testSettings()); len(bad) == 0 {
			t.Errorf("%s: the Bad example produces no finding", name)
		}
		if good := runRuleOn(t, name, r.Doc.Good, testSettings()); len(good) != 0 {
			t.Errorf("%s: the Good example produces %v", name, good)
		}
		if len(decodeTestConfigs(t, r.Doc.Bad)) == 0 || len(decodeTestConfigs(t, r.Doc.Good)) == 0 {
			t.Errorf("%s: examples must be whole webhook configurations", name)
		}
	}
}
