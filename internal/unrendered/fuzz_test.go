package unrendered

import "testing"

// FuzzDetect: recognition never panics, and a template found has a
// position and a message.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("name: {{ .Release.Name }}\n"))
	f.Add([]byte("{{/*\n*/}}\n{{- if .Values.x }}\nkind: A\n{{- end }}\n"))
	f.Add([]byte("caBundle: {{caBundle}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, find := range []func(string, []byte) (Template, bool){InFile, InDocument} {
			if tpl, ok := find("x.yaml", data); ok && (tpl.Line < 1 || tpl.Column < 1 || tpl.Message() == "") {
				t.Fatalf("bad template %+v", tpl)
			}
		}
	})
}

// FuzzDocuments: the document cut covers every line once, in order, and a
// bare action is positioned inside its document.
func FuzzDocuments(f *testing.F) {
	f.Add([]byte("a: '{{ x }}'\n---\n{{ if }}\nb: 1\n"))
	f.Add([]byte("k: |\n  {{ x }}\n- [a, {{ b }}]\n# {{ c }}\n"))
	f.Add([]byte("\"a\n{{ b }}\": {{ c }}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		next := 1
		for _, d := range Documents(data) {
			if d.FirstLine != next || d.LastLine < d.FirstLine-1 {
				t.Fatalf("documents do not tile the file: %+v at %d", d, next)
			}
			next = d.LastLine + 2
			if d.Action != "" && (d.Line < d.FirstLine || d.Line > d.LastLine || d.Column < 1) {
				t.Fatalf("action outside its document: %+v", d)
			}
		}
	})
}
