package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes data at path, creating the folders above it, and
// returns path.
func WriteFile[T string | []byte](t testing.TB, path string, data T) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteTree writes files (a slash-separated path under root → its text).
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		WriteFile(t, filepath.Join(root, filepath.FromSlash(name)), text)
	}
}

// Tree writes files under a new temporary folder and returns the folder.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	WriteTree(t, root, files)
	return root
}

// Repo is Tree marked as a repository root (.git/HEAD), where discovery
// stops walking up.
func Repo(t testing.TB, files map[string]string) string {
	t.Helper()
	root := Tree(t, files)
	WriteFile(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	return root
}
