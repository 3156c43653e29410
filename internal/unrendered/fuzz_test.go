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
		HasTemplateKeys(data)
	})
}
