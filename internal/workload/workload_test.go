package workload

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each workload writes the count of units asked for, in the files its
// doc says, and a workload twice the size holds the smaller one's files
// unchanged (hack/bench.sh's ×2 is ×1 and as much again).
func TestWrite(t *testing.T) {
	// units counts what a workload's Unit names in a written tree.
	units := map[string]func(path, text string) int{
		"configs": func(_, text string) int { return strings.Count(text, "kind: ") },
		"mixed":   func(_, text string) int { return strings.Count(text, "\n---\n") + strings.Count(text[:4], "---\n") },
		"broken":  func(_, text string) int { return strings.Count(text, "kind: ") },
		"monorepo": func(path, _ string) int {
			if strings.HasSuffix(path, "/prod/kustomization.yaml") {
				return 1
			}
			return 0
		},
	}
	for _, w := range All {
		t.Run(w.Name, func(t *testing.T) {
			small, large := t.TempDir(), t.TempDir()
			n := w.Base / 25 // mixed: whole files of 200
			if err := w.Write(small, n); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(large, 2*n); err != nil {
				t.Fatal(err)
			}
			smallFiles, got := read(t, small, units[w.Name])
			if got != n {
				t.Errorf("%d %ss written, want %d", got, w.Unit, n)
			}
			largeFiles, got := read(t, large, units[w.Name])
			if got != 2*n {
				t.Errorf("%d %ss written at twice the size, want %d", got, w.Unit, 2*n)
			}
			for p, text := range smallFiles {
				if largeFiles[p] != text {
					t.Errorf("%s differs at twice the size", p)
				}
			}
		})
	}
	if _, ok := Named("monorepo"); !ok {
		t.Error("Named(monorepo): not found")
	}
	if got := MonorepoChanged(20); got != "apps/app-0019/base/app.yaml" {
		t.Errorf("MonorepoChanged(20) = %s", got)
	}
}

// read returns the files under root and the sum of count over them.
func read(t *testing.T, root string, count func(path, text string) int) (map[string]string, int) {
	t.Helper()
	files, sum := map[string]string{}, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		sum += count(filepath.ToSlash(p), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, sum
}
