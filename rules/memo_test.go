package rules

import "testing"

func TestBoundedMemo(t *testing.T) {
	m := boundedMemo{limit: 2}
	calls := map[string]int{}
	get := func(k string) string {
		return m.get(k, func() any { calls[k]++; return "v" + k }).(string)
	}
	for range 3 {
		for _, k := range []string{"a", "b", "c"} {
			if got := get(k); got != "v"+k {
				t.Fatalf("get(%q) = %q", k, got)
			}
		}
	}
	// a and b are remembered; c came past the limit and is computed each time.
	if calls["a"] != 1 || calls["b"] != 1 || calls["c"] != 3 {
		t.Errorf("computations = %v, want a:1 b:1 c:3", calls)
	}
	if len(m.m) != 2 {
		t.Errorf("memo holds %d keys, want its limit 2", len(m.m))
	}
}
