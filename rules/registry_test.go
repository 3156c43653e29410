package rules

import (
	"regexp"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
)

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// TestRuleMetadata holds every rule to what the docs, --explain, SARIF and
// the analyzer rely on.
func TestRuleMetadata(t *testing.T) {
	for _, r := range All() {
		if !kebab.MatchString(r.Name) {
			t.Errorf("%s: name is not kebab-case", r.Name)
		}
		if strings.HasSuffix(r.Summary, ".") || r.Summary == "" {
			t.Errorf("%s: summary must be one line without a trailing period", r.Name)
		}
		if strings.TrimSpace(r.Doc.Why) == "" || strings.TrimSpace(r.Doc.Fix) == "" {
			t.Errorf("%s: doc needs Why and Fix", r.Name)
		}
		if r.Check != nil && (strings.TrimSpace(r.Doc.Bad) == "" || strings.TrimSpace(r.Doc.Good) == "") {
			t.Errorf("%s: doc needs a bad and a good example", r.Name)
		}
		// An error means the API server rejects the object; everything it
		// accepts is at most a warning, however much it hurts.
		if r.Category == Practice && r.Severity > diag.Warning {
			t.Errorf("%s: practice rules default to warning or info, not %s", r.Name, r.Severity)
		}
	}
}
