package rules

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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

func TestKeyBuilderKeepsInputsApart(t *testing.T) {
	key := func(f func(*keyBuilder)) string {
		var k keyBuilder
		f(&k)
		return string(k)
	}
	keys := map[string]string{
		"a,b":          key(func(k *keyBuilder) { k.strs([]string{"a", "b"}) }),
		"ab":           key(func(k *keyBuilder) { k.strs([]string{"ab"}) }),
		"a;b":          key(func(k *keyBuilder) { k.strs([]string{"a;b"}) }),
		"1:a":          key(func(k *keyBuilder) { k.strs([]string{"1:a"}) }),
		"a then empty": key(func(k *keyBuilder) { k.strs([]string{"a"}); k.strs(nil) }),
		"empty then a": key(func(k *keyBuilder) { k.strs(nil); k.strs([]string{"a"}) }),
		"nil selector": key(func(k *keyBuilder) { k.selector(nil) }),
		"{} selector":  key(func(k *keyBuilder) { k.selector(&metav1.LabelSelector{}) }),
		"label a=b":    key(func(k *keyBuilder) { k.selector(&metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}) }),
		"label ab=":    key(func(k *keyBuilder) { k.selector(&metav1.LabelSelector{MatchLabels: map[string]string{"ab": ""}}) }),
	}
	seen := map[string]string{}
	for what, k := range keys {
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s share the key %q", what, other, k)
		}
		seen[k] = what
	}
}
