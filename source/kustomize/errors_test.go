package kustomize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failed build says what is wrong in one line, with the entry as the
// kustomization writes it and no absolute path.
func TestBuildErrorsAreOneLineAndRelative(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for _, dir := range []string{"base", "missing-resource", "missing-patch", "outside"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join("base", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	writeFile(t, filepath.Join("missing-resource", "kustomization.yaml"), "resources:\n- missing.yaml\n")
	writeFile(t, filepath.Join("missing-patch", "kustomization.yaml"), "resources:\n- ../base\npatchesStrategicMerge:\n- nopatch.yaml\n")
	writeFile(t, filepath.Join("base", "kustomization.yaml"), "resources:\n- cm.yaml\n")
	writeFile(t, filepath.Join("outside", "kustomization.yaml"), "resources:\n- ../base/cm.yaml\n")
	for dir, want := range map[string]string{
		"missing-resource": "kustomize build missing-resource: resource 'missing.yaml' does not exist",
		"missing-patch":    "kustomize build missing-patch: patchesStrategicMerge: 'nopatch.yaml' does not exist",
		"outside": "kustomize build outside: resource '../base/cm.yaml' is outside the kustomization's folder, " +
			"and kustomize reads files only in or below it; refer to a folder with its own kustomization.yaml instead",
	} {
		for _, typed := range []string{dir, filepath.Join(root, dir)} {
			_, err := Run(typed)
			if err == nil {
				t.Fatalf("%s: built", typed)
			}
			got := err.Error()
			w := want
			if typed != dir {
				w = strings.Replace(want, "build "+dir, "build "+typed, 1)
			}
			if got != w {
				t.Errorf("%s:\n got %s\nwant %s", typed, got, w)
			}
		}
	}
}

func TestTidyKeepsWhatItDoesNotKnow(t *testing.T) {
	cwd, _ := os.Getwd()
	in := "some new failure in " + filepath.Join(cwd, "a", "b.yaml") + ":\n  second line"
	if got := tidy(in, "."); got != "some new failure in a/b.yaml: second line" {
		t.Errorf("tidy = %q", got)
	}
	// Paths outside the current folder stay absolute.
	if got := tidy("no such thing: /nowhere/x.yaml", "."); got != "no such thing: /nowhere/x.yaml" {
		t.Errorf("tidy = %q", got)
	}
}
