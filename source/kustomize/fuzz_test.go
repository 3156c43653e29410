package kustomize

import (
	"strings"
	"testing"
)

// FuzzPatchLookup: any patch text and any field path are looked up
// without a panic.
func FuzzPatchLookup(f *testing.F) {
	f.Add([]byte("kind: V\nmetadata: {name: a}\nwebhooks:\n- name: x\n  failurePolicy: Fail\n"), "webhooks[0].failurePolicy")
	f.Add([]byte(`[{"op": "add", "path": "/webhooks/0/x~1y", "value": {"a": [1]}}]`), "webhooks[0][x/y].a[0]")
	f.Add([]byte("a: &x [*x]\n"), "a[0][0]")
	f.Fuzz(func(t *testing.T, src []byte, path string) {
		pt := &patch{file: "p.yaml"}
		if err := pt.parse(src, 0, 0); err != nil {
			return
		}
		rendered := map[string]any{"webhooks": []any{map[string]any{"name": "x"}}}
		for _, d := range pt.docs {
			d.tab.lookup(path, rendered)
			d.tab.keyOf(path, rendered)
		}
	})
}

// FuzzAliasBomb: the alias budget check takes any text without a panic,
// and finds nothing in text without aliases.
func FuzzAliasBomb(f *testing.F) {
	f.Add([]byte("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"))
	f.Add([]byte("a: &a {b: *a}\n"))
	f.Add([]byte("---\n- &x [1]\n---\n- *x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := aliasBomb("f.yaml", src)
		if p != nil && (p.Line < 1 || p.Column < 1) {
			t.Fatalf("bad position %+v", p)
		}
		if p != nil && !strings.Contains(string(src), "*") {
			t.Fatalf("no alias, yet %v", p)
		}
	})
}
