// Package testkit is what the tests of several packages share, so that
// each helper is written once: golden files with the one -update flag of
// every package's tests, and writing trees of files to read.
package testkit

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Golden compares got with the golden file at path (kept under
// testdata), or under -update writes got there (and the folders above it).
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run the test with -update and review the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
