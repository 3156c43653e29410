package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records failures instead of failing the test that drives Golden.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }

func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	check := func(got string) bool {
		f := &fakeT{TB: t}
		Golden(f, path, []byte(got))
		return !f.failed
	}
	if check("a\n") {
		t.Error("a missing golden file passes")
	}
	*update = true
	ok := check("a\n")
	*update = false
	if b, err := os.ReadFile(path); !ok || err != nil || string(b) != "a\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	if !check("a\n") || check("b\n") {
		t.Error("Golden does not tell the golden file's content from another")
	}
}
