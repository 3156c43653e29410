package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepo(t *testing.T) {
	root := Repo(t, map[string]string{"a/b/c.yaml": "x: 1\n", "d.yaml": ""})
	for name, want := range map[string]string{"a/b/c.yaml": "x: 1\n", "d.yaml": "", ".git/HEAD": "ref: refs/heads/main\n"} {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestReadJSONLines(t *testing.T) {
	type v struct{ A int }
	p := WriteFile(t, filepath.Join(t.TempDir(), "v.jsonl"), "{\"A\": 1}\n{\"A\": 2}\n")
	if got := ReadJSONLines[v](t, p); len(got) != 2 || got[0].A != 1 || got[1].A != 2 {
		t.Errorf("ReadJSONLines = %v, want [{1} {2}]", got)
	}
}
