package rules

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

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
		if strings.HasSuffix(r.Summary, ".") || r.Summary == "" || strings.Contains(r.Summary, "\n") {
			t.Errorf("%s: summary must be one line without a trailing period", r.Name)
		}
		// Summaries read as a clause after the rule name in listings.
		if first, _ := utf8.DecodeRuneInString(r.Summary); unicode.IsUpper(first) {
			t.Errorf("%s: summary starts with a capital letter: %q", r.Name, r.Summary)
		}
		if strings.TrimSpace(r.Doc.Why) == "" || strings.TrimSpace(r.Doc.Fix) == "" {
			t.Errorf("%s: doc needs Why and Fix", r.Name)
		}
		if ex := r.Examples(); r.Check != nil && (strings.TrimSpace(ex.Bad) == "" || strings.TrimSpace(ex.Good) == "") {
			t.Errorf("%s: doc needs a bad and a good example", r.Name)
		}
		// An error means the API server rejects the object; everything it
		// accepts is at most a warning, however much it hurts.
		if r.Category == Practice && r.Severity > diag.Warning {
			t.Errorf("%s: practice rules default to warning or info, not %s", r.Name, r.Severity)
		}
	}
}

// TestExamplesBelongToRules keeps examples/ in step with the registry: a
// folder left behind by a renamed rule would never be shown or tested.
func TestExamplesBelongToRules(t *testing.T) {
	entries, err := fs.ReadDir(examples, "examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		r, ok := Lookup(e.Name())
		if !ok {
			t.Errorf("examples/%s: no rule has this name", e.Name())
			continue
		}
		if ex := r.Examples(); ex.Bad == "" || ex.Good == "" {
			t.Errorf("examples/%s: holds no bad and good example", e.Name())
		}
		files, _ := fs.ReadDir(examples, "examples/"+e.Name())
		if len(files) != 2 {
			t.Errorf("examples/%s: want bad and good, found %d files", e.Name(), len(files))
		}
	}
}
