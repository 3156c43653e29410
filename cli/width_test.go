package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/linewidth"
)

// Text output stays within linewidth.Max columns for a typical repository
// (issue 38), with every rule's message.
func TestTextWidth(t *testing.T) {
	t.Chdir("..")
	_, out, _ := run(t, "", "--color", "never", "examples")
	// The example bundle has one finding of each kind README shows.
	if n := linewidth.Check(t, "examples", out); n < 9 {
		t.Errorf("examples: %d finding lines checked, want 9 or more:\n%s", n, out)
	}
}

// The rules' own fixtures hold a finding of every kind each rule words,
// with the longest names the tests could think of (issue 38): they are
// linted as a user would lint a folder, with the defaults.
func TestTextWidthRuleFixtures(t *testing.T) {
	t.Chdir("..")
	_, out, _ := run(t, "", "--color", "never", "testdata/rules")
	// 648 finding lines when this test was written: fewer than 600 means
	// the fixtures were not linted, not that they lost a few findings.
	if n := linewidth.Check(t, "testdata/rules", out); n < 600 {
		t.Errorf("testdata/rules: %d finding lines checked, want 600 or more", n)
	}
}

// The real-world layouts are linted from their root, as their maintainers
// would: webhooklint .
func TestTextWidthCorpusLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("lints the corpus")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", "shared", "corpus", "layouts"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Skipf("no corpus: %v", err)
	}
	total := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Chdir(filepath.Join(root, e.Name()))
			_, out, _ := run(t, "", "--color", "never", ".")
			total += linewidth.Check(t, e.Name(), out)
		})
	}
	// 9 layouts, most with findings of the rules that wrote the widest
	// messages (backend-availability, ca-bundle, helm-render, ...).
	if total < 40 {
		t.Errorf("the layouts gave %d finding lines, want 40 or more", total)
	}
}
