package helm

import (
	"math/big"
	"testing"
)

// FuzzTrace: any template text and any field path give a position inside
// the template, never a panic.
func FuzzTrace(f *testing.F) {
	f.Add([]byte("kind: X\nwebhooks:\n- name: a\n  failurePolicy: {{ .Values.f }}\n"), "webhooks[0].failurePolicy", 0)
	f.Add([]byte("---\n---\n- - -\n  x:\n\t{{- if }}\n"), "a[3].b[c.d]", 2)
	f.Add([]byte(""), "", -1)
	f.Fuzz(func(t *testing.T, src []byte, path string, doc int) {
		tpl := &Template{Source: src}
		tr := tpl.Trace(doc, path)
		if tr.Line < 1 || tr.Column < 1 || tr.EndColumn < tr.Column {
			t.Fatalf("bad position %+v", tr)
		}
	})
}

// FuzzIterations: the loop bound accepts any arguments without a panic
// and refuses every list longer than MaxIterations.
func FuzzIterations(f *testing.F) {
	f.Add(100000000, 0, 1)
	f.Add(-9223372036854775808, 9223372036854775807, -1)
	f.Add(5, 0, 0)
	f.Fuzz(func(t *testing.T, stop, start, step int) {
		err := iterations("untilStep", stop, start, step)
		n := new(big.Int).Sub(big.NewInt(int64(stop)), big.NewInt(int64(start)))
		if step != 0 && n.Sign()*big.NewInt(int64(step)).Sign() > 0 {
			n.Quo(n.Abs(n), new(big.Int).Abs(big.NewInt(int64(step))))
			if err == nil && n.Cmp(big.NewInt(MaxIterations)) > 0 {
				t.Fatalf("untilStep %d %d %d (%v elements) allowed", start, stop, step, n)
			}
		}
	})
}
