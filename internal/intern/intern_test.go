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

func TestSharedKeepsTheFirstValue(t *testing.T) {
	tab := New()
	first := []string{"v1"}
	if got := tab.Shared("k", first).([]string); unsafe.SliceData(got) != unsafe.SliceData(first) {
		t.Fatal("the first value was not kept")
	}
	if got := tab.Shared("k", []string{"v1"}).([]string); unsafe.SliceData(got) != unsafe.SliceData(first) {
		t.Fatal("an equal value under the same key was not shared")
	}
	var none *Table
	other := []string{"v1"}
	if got := none.Shared("k", other).([]string); unsafe.SliceData(got) != unsafe.SliceData(other) {
		t.Fatal("a nil table shared a value")
	}
}
