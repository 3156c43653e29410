package kustomize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
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
	testkit.WriteFile(t, filepath.Join("base", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	testkit.WriteFile(t, filepath.Join("missing-resource", "kustomization.yaml"), "resources:\n- missing.yaml\n")
	testkit.WriteFile(t, filepath.Join("missing-patch", "kustomization.yaml"), "resources:\n- ../base\npatchesStrategicMerge:\n- nopatch.yaml\n")
	testkit.WriteFile(t, filepath.Join("base", "kustomization.yaml"), "resources:\n- cm.yaml\n")
	testkit.WriteFile(t, filepath.Join("outside", "kustomization.yaml"), "resources:\n- ../base/cm.yaml\n")
	for dir, want := range map[string]string{
		"missing-resource": "kustomize build missing-resource: resource 'missing.yaml' does not exist",
		"missing-patch":    "kustomize build missing-patch: patchesStrategicMerge: 'nopatch.yaml' does not exist",
		"outside": "kustomize build outside: resource '../base/cm.yaml' is outside the kustomization's folder, " +
			"and kustomize reads files only in or below it; refer to a folder with its own kustomization.yaml instead",
	} {
		for _, typed := range []string{dir, filepath.Join(root, dir)} {
			_, err := RunAs(typed, nil)
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

// A checkout reached through a symbolic link shows the same relative paths
// as the real folder: kustomize reports paths with links resolved. An
// overlay whose base fails names the base and what is wrong in it.
func TestBuildErrorsThroughALink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	for _, dir := range []string{"base", "overlay"} {
		if err := os.MkdirAll(filepath.Join(real, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WriteFile(t, filepath.Join(real, "base", "kustomization.yaml"), "patches:\n- path: missing-patch.yaml\n")
	testkit.WriteFile(t, filepath.Join(real, "overlay", "kustomization.yaml"), "resources:\n- ../base\n")
	if err := os.Symlink(real, filepath.Join(root, "link")); err != nil {
		t.Skip(err)
	}
	t.Chdir(filepath.Join(root, "link"))
	for dir, want := range map[string]string{
		"base":    "kustomize build base: patches: 'missing-patch.yaml' does not exist",
		"overlay": "kustomize build base: patches: 'missing-patch.yaml' does not exist",
	} {
		_, err := RunAs(dir, nil)
		if err == nil {
			t.Fatalf("%s: built", dir)
		}
		if got := err.Error(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", dir, got, want)
		}
		if f, ok := FailedIn(err); !ok || f != filepath.Join(root, "link", "base", "kustomization.yaml") {
			t.Errorf("%s: failed in %q", dir, f)
		}
	}
}
