package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the loader panic, and that every
// diagnostic it produces has a position inside the file.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/rules/*/*.yaml")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nwebhooks: [{<<: *x}]"))
	f.Add([]byte("{\"kind\": \"List\", \"items\": [1, [], {\"kind\": \"ValidatingWebhookConfiguration\"}]}"))
	// Shapes with limits and findings of their own.
	f.Add([]byte(`[{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"}}]{"kind":"List","items":[{"kind":"List","items":[]}]}`))
	f.Add([]byte("a: 1\n...\nb: \x00\n---\n\xff\xfe\nkind: Service\nmetadata: {}\n"))
	f.Add([]byte(aliasBomb(4, 6)))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := Parse("fuzz.yaml", data)
		lines := 1
		for _, b := range data {
			if b == '\n' {
				lines++
			}
		}
		check := func(line int) {
			if line < 1 || line > lines {
				t.Fatalf("diagnostic on line %d of a %d-line input", line, lines)
			}
		}
		for _, d := range file.Diagnostics {
			check(d.Line)
		}
		for _, doc := range file.Docs {
			for _, d := range doc.Diagnostics {
				check(d.Line)
			}
		}
	})
}
