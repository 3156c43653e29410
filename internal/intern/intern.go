// Package intern shares equal strings (and, through Table.Shared, equal
// values nobody writes to) within one scope, such as a unit:
// a folder of thousands of webhook configurations repeats the same values
// ("Fail", "kube-system", a matchCondition's expression) and its findings
// the same messages and field paths, and each copy would otherwise stay
// alive until the unit is reported.
//
// A table lives as long as its scope, not the process: the editor server
// runs for days, and a process-wide table would keep every string it ever
// saw. (The standard library's unique package keeps an entry only while a
// Handle to it lives, which the strings of a decoded object are not.)
package intern

import "sync"

// Table holds one copy of each string given to it. It is safe for
// concurrent use; a nil *Table shares nothing.
type Table struct {
	mu     sync.Mutex
	m      map[string]string
	shared map[any]any
}

// New returns an empty table.
func New() *Table { return &Table{m: map[string]string{}} }

// Shared returns the value the table holds under key, adding v under it
// when it has none. Callers share values nobody writes to (a decoded
// object's list of strings, ["CREATE", "UPDATE"]); key must say all of the
// value, its type included. A nil *Table shares nothing.
func (t *Table) Shared(key, v any) any {
	if t == nil {
		return v
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.shared[key]; ok {
		return c
	}
	if t.shared == nil {
		t.shared = map[any]any{}
	}
	t.shared[key] = v
	return v
}

// String returns the table's copy of s, adding s when it has none.
func (t *Table) String(s string) string {
	if t == nil || s == "" {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[s]; ok {
		return c
	}
	t.m[s] = s
	return s
}
