package intern

import (
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestSharesEqualStrings(t *testing.T) {
	tab := New()
	a := tab.String(strings.Repeat("x", 3))
	b := tab.String(strings.Repeat("x", 3)) // another allocation, same text
	if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatalf("equal strings not shared: %p %p", unsafe.StringData(a), unsafe.StringData(b))
	}
	if c := tab.String("y"); c != "y" {
		t.Fatalf("got %q, want %q", c, "y")
	}
}

func TestNilTableSharesNothing(t *testing.T) {
	var tab *Table
	s := strings.Repeat("x", 3)
	if got := tab.String(s); unsafe.StringData(got) != unsafe.StringData(s) {
		t.Fatal("a nil table returned another string")
	}
}

func TestConcurrent(t *testing.T) {
	tab := New()
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = tab.String(strings.Repeat("z", 4)) })
	}
	wg.Wait()
	for _, g := range got[1:] {
		if unsafe.StringData(g) != unsafe.StringData(got[0]) {
			t.Fatal("concurrent callers got different copies")
		}
	}
}
