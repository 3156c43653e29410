package fix_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"

	"github.com/webhooklint/webhooklint/fix"
)

// TestInsertKeepsStyle makes the fixes that insert a missing field
// (sideEffects, admissionReviewVersions, a namespaceSelector excluding
// kube-system) in each way a webhook's fields
// can be written, and checks the result byte for byte: a block mapping
// gets lines at its siblings' indentation (before the first key where
// the keys are sorted, as controller-gen writes them), lists in the
// file's style, CRLF kept; a flow mapping and JSON an entry with their
// separators; an anchored webhook no fix. The cases are in
// testdata/insert (textCases).
func TestInsertKeepsStyle(t *testing.T) {
	for _, c := range textCases(t, "insert") {
		t.Run(c.name, func(t *testing.T) {
			if got := fixAll(t, c.name, c.in, true); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// fixAll writes text to a file of that name and makes its fixes (with
// unsafe, the unsafe ones too) as --fix does, in rounds until none is
// left: two insertions at one place are made in two rounds, the second
// seeing the first. It returns the fixed text.
func fixAll(t *testing.T, name, text string, unsafe bool) string {
	t.Helper()
	name = filepath.Join(t.TempDir(), name)
	testkit.WriteFile(t, name, []byte(text))
	for round := 0; ; round++ {
		edits, n := fix.Select(lintFile(t, name), unsafe)
		if n == 0 {
			break
		}
		if round == 3 {
			t.Fatalf("still %d fixes after %d rounds", n, round)
		}
		text, _ := os.ReadFile(name)
		out, err := fix.Apply(text, edits[name])
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, name, out)
	}
	got, _ := os.ReadFile(name)
	return string(got)
}
