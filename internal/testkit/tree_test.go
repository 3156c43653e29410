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
