package helm

import (
	"os"
	"path/filepath"
	"testing"
)

func TestValuesAt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("values.yaml", "webhook:\n  replicas: 2\n  timeoutSeconds: 10\n")
	prod := write("values-prod.yaml", "webhook:\n  replicas: 1\n")
	tpl := []byte("spec:\n  replicas: {{ .Values.webhook.replicas }}\n  x: {{ $.Values.webhook.timeoutSeconds | int }}\n  y: 1\n")
	got, ok := ValuesAt(dir, []string{prod}, tpl, 2)
	if !ok || got.Key != "webhook.replicas" || got.File != prod || got.Line != 2 {
		t.Errorf("replicas: %+v %v", got, ok)
	}
	got, ok = ValuesAt(dir, []string{prod}, tpl, 3)
	if !ok || got.Key != "webhook.timeoutSeconds" || filepath.Base(got.File) != "values.yaml" || got.Line != 3 {
		t.Errorf("timeoutSeconds: %+v %v", got, ok)
	}
	if _, ok := ValuesAt(dir, nil, tpl, 4); ok {
		t.Error("a literal line reads no value")
	}
}
