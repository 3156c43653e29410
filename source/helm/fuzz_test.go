package helm

import "testing"

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
