package lint_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// TestRuleDocExamples lints every rule's documented examples with the real
// loader, so the docs, --explain and SARIF help cannot drift from the code:
// the Bad example must raise its rule and the Good one must stay clean of
// it, and both must be input a user can copy (no YAML or schema error).
// Fragments (rules.Doc.Fragment: bad.fragment.yaml) are excerpts, of a
// webhook or of a tree the linter reads as a whole (a chart, a
// kustomization), and only have to be YAML; a file listing (input-file) is
// not a manifest at all.
func TestRuleDocExamples(t *testing.T) {
	linted := 0
	for _, r := range rules.All() {
		if r.Doc.Bad == "" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			switch {
			case r.Doc.ExampleLang != "yaml":
				t.Skipf("a %s example is not a manifest", r.Doc.ExampleLang)
			case r.Doc.Fragment:
				for kind, src := range map[string]string{"Bad": r.Doc.Bad, "Good": r.Doc.Good} {
					if strings.Contains(src, "{{") {
						continue // a Helm template, YAML once rendered
					}
					var v any
					if err := yaml.Unmarshal([]byte(src), &v); err != nil {
						t.Errorf("the %s fragment is not YAML: %v", kind, err)
					}
				}
				return
			}
			linted++
			if got := lintExample(t, r, "bad", r.Doc.Bad); len(got) == 0 {
				t.Errorf("the Bad example does not raise %s", r.Name)
			}
			if got := lintExample(t, r, "good", r.Doc.Good); len(got) != 0 {
				t.Errorf("the Good example raises %s:\n%s", r.Name, strings.Join(got, "\n"))
			}
		})
	}
	if linted == 0 {
		t.Error("no rule has an example that is linted")
	}
}

// lintExample lints one example with r and the loader's input checks on,
// and returns r's findings ("line:column: message"). An input error the
// example does not exist to show fails the test.
func lintExample(t *testing.T, r *rules.Rule, kind, src string) []string {
	t.Helper()
	settings := rules.DefaultSettings()
	settings.Now = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC) // as the fixtures
	input := map[string]bool{r.Name: true, rules.YAMLSyntaxRule: true, rules.SchemaRule: true}
	res := lint.LintUnit(lint.Unit{Files: []*manifest.File{manifest.Parse(r.Name+"/"+kind+".yaml", []byte(src))}}, lint.Options{
		Settings: settings,
		Enabled:  func(name string) bool { return input[name] },
	})
	for _, e := range res.Internal {
		t.Errorf("%s example: %v", kind, e)
	}
	var got []string
	for _, d := range res.Diagnostics {
		if d.Rule != r.Name {
			t.Errorf("%s example: %d:%d: %s [%s]", kind, d.Line, d.Column, d.Message, d.Rule)
			continue
		}
		got = append(got, fmt.Sprintf("%d:%d: %s", d.Line, d.Column, d.Message))
	}
	return got
}
