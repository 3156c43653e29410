package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"w.yaml", "a/w.yaml", "a/b/w.yaml", "a/b/c/x.yml", "a/.hidden/w.yaml", "a/vendor/w.yaml", "d/w.json", "a/notes.txt"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	for pattern, want := range map[string]string{
		"**/w.yaml":      "a/b/w.yaml a/w.yaml w.yaml",
		"a/**/w.yaml":    "a/b/w.yaml a/w.yaml",
		"a/**/*.y*ml":    "a/b/c/x.yml a/b/w.yaml a/w.yaml",
		"a/**":           "a a/b a/b/c a/b/c/x.yml a/b/w.yaml a/w.yaml",
		"**/c":           "a/b/c",
		"*/**/w.*":       "a/b/w.yaml a/w.yaml d/w.json",
		"a/**/**/w.yaml": "a/b/w.yaml a/w.yaml",
		"nope/**/w":      "",
		"a/*.yaml":       "a/w.yaml", // no **: filepath.Glob
	} {
		got, err := Glob(pattern)
		if err != nil {
			t.Errorf("%s: %v", pattern, err)
			continue
		}
		for i := range got {
			got[i] = filepath.ToSlash(got[i])
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Glob(%q) = %q, want %q", pattern, got, want)
		}
	}
	abs, err := Glob(filepath.Join(dir, "a", "**", "x.yml"))
	if err != nil || len(abs) != 1 || abs[0] != filepath.Join(dir, "a", "b", "c", "x.yml") {
		t.Errorf("absolute pattern: %q, %v", abs, err)
	}
	for _, bad := range []string{"a**/w", "a/**b", "[/**"} {
		if _, err := Glob(bad); err == nil {
			t.Errorf("Glob(%q): no error", bad)
		}
	}
}

func TestExpandNothingToLint(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub", "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "w.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, args := range [][]string{{"sub"}, {"w.yaml", "sub"}, {"sub/*"}, {"sub/**"}} {
		_, err := Expand(args, "")
		var e *NoManifestsError
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "no manifests found under sub") {
			t.Errorf("%q: %v, want no manifests found under sub…", args, err)
		}
	}
	// A folder whose files were named before still holds something.
	for _, args := range [][]string{{"."}, nil, {"w.yaml", "."}, {"**/*.yaml"}} {
		if _, err := Expand(args, ""); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}
