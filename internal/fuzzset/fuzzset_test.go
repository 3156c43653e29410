package fuzzset

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

const conformanceDir = "../../testdata/conformance"

// TestSetIsRegenerated checks the checked-in set is what the generator
// makes from the seeds, byte for byte (-update rewrites it; then record
// its verdicts with hack/record-conformance.sh testdata/conformance/fuzz/*.yaml).
func TestSetIsRegenerated(t *testing.T) {
	files, err := Generate(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(Styles) {
		t.Fatalf("%d files, want one per style", len(files))
	}
	for _, name := range sortedKeys(files) {
		testkit.Golden(t, filepath.Join(conformanceDir, "fuzz", name), files[name])
	}
}

// TestGenerateIsDeterministic: two runs make the same bytes (the golden
// comparison alone would not catch a map order that happens to repeat).
func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for name := range a {
		if string(a[name]) != string(b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
		if n := strings.Count(string(a[name]), "\n---\n") + 1; n != perFile {
			t.Errorf("%s: %d documents, want %d", name, n, perFile)
		}
	}
}
