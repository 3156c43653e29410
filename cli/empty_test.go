package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// Nothing to lint is a usage error, not a green run: a folder without
// manifests named on the command line or linted by default, a pattern
// matching only such folders, and a missing --values file.
func TestNothingToLint(t *testing.T) {
	dir := testkit.Tree(t, map[string]string{
		"README.md":          "# not a manifest\n",
		"docs/notes.txt":     "",
		"deploy/typo.yaml":   typo,
		"charts/c/Chart.txt": "",
	})
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"docs"}, "webhooklint: no manifests found under docs (no .yaml, .yml or .json file)\n"},
		{[]string{"deploy", "docs"}, "webhooklint: no manifests found under docs (no .yaml, .yml or .json file)\n"},
		{[]string{"--format", "json", "docs/"}, "webhooklint: no manifests found under docs/ (no .yaml, .yml or .json file)\n"},
		{[]string{"charts/*"}, "webhooklint: no manifests found under charts/* (no .yaml, .yml or .json file)\n"},
		{[]string{"docs/**"}, "webhooklint: no manifests found under docs/** (no .yaml, .yml or .json file)\n"},
		{[]string{"nowhere/**/*.yaml"}, "webhooklint: nowhere/**/*.yaml: no files match\n"},
		{[]string{"deploy", "--values", "missing.yaml"}, "webhooklint: --values missing.yaml: no such file\n"},
		{[]string{"simulate", "--operation", "CREATE", "--resource", "pods", "--namespace", "x", "docs"},
			"webhooklint simulate: no manifests found under docs (no .yaml, .yml or .json file)\n"},
	} {
		code, out, errOut := runIn(t, "", c.args...)
		if code != ExitUsage || out != "" || errOut != c.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
	// With no PATH, the current folder: nothing there is the same error.
	t.Chdir(filepath.Join(dir, "docs"))
	if code, out, errOut := runIn(t, ""); code != ExitUsage || out != "" || errOut != "webhooklint: no manifests found under . (no .yaml, .yml or .json file)\n" {
		t.Errorf("no PATH in an empty folder: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// ** on the command line matches any number of folders, as in the
// configuration file; findings are named as the pattern's matches.
func TestDoubleStarGlob(t *testing.T) {
	dir := testkit.Tree(t, map[string]string{
		"config/webhook/manifests.yaml":  typo,
		"config/default/x/manifest.yaml": typo,
		"config/.cache/manifest.yaml":    typo, // hidden: skipped, as in a folder walk
		"other/manifests.yaml":           typo,
	})
	t.Chdir(dir)
	code, out, errOut := runIn(t, "", "--color", "never", "--format", "github", "config/**/manifest*.yaml")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var files []string
	for _, line := range strings.Split(out, "\n") {
		if _, rest, ok := strings.Cut(line, "file="); ok {
			name, _, _ := strings.Cut(rest, ",")
			if len(files) == 0 || files[len(files)-1] != name {
				files = append(files, name)
			}
		}
	}
	if got := strings.Join(files, " "); got != "config/default/x/manifest.yaml config/webhook/manifests.yaml" {
		t.Errorf("files %q", got)
	}
}

// Helm's and kustomize's errors arrive as one line each, with relative
// paths, at the line that causes them; a value the chart requires is a
// warning that says how to give it.
func TestPassThroughErrors(t *testing.T) {
	dir := testkit.Tree(t, map[string]string{
		"chart/Chart.yaml":  "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/values.yaml": "webhook: {}\n",
		"chart/templates/webhook.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n" +
			"  name: {{ required \"name the configuration\" .Values.webhook.configName }}\nwebhooks: []\n",
		"overlay/kustomization.yaml": "resources:\n- webhook.yaml\n- missing.yaml\n",
		"overlay/webhook.yaml":       clean,
		// A checkout: what is missing there is missing (see
		// TestMissingFileOutsideRepository).
		".git/HEAD": "ref: refs/heads/main\n",
	})
	t.Chdir(dir)
	code, out, errOut := runIn(t, "", "--color", "never", "--format", "json", "chart", "overlay")
	if code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`"file": "chart/templates/webhook.yaml",
      "line": 4,
      "column": 12,`,
		`"severity": "warning",
      "rule": "helm-render",
      "message": "chart needs webhook.configName: set it with --set or in .webhooklint.yaml; the rest is linted"`,
		`"file": "overlay/kustomization.yaml",
      "line": 3,
      "column": 3,`,
		`"message": "resource 'missing.yaml' does not exist; its files are linted alone"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks\n%s\n--- output:\n%s", want, out)
		}
	}
	if strings.Contains(out, dir) || strings.Contains(out, `\n`) {
		t.Errorf("an absolute path or a line break in:\n%s", out)
	}
	// Given the value, the chart renders clean.
	code, out, _ = runIn(t, "", "--color", "never", "--format", "counts", "--fail-on", "error", "chart", "--set", "webhook.configName=x")
	if code != ExitOK || !strings.Contains(out, "errors=0\nwarnings=0") {
		t.Errorf("with --set: exit %d, %s", code, out)
	}
	// A warning: --fail-on error lets the run pass.
	if code, _, _ := runIn(t, "", "--fail-on", "error", "chart"); code != ExitOK {
		t.Errorf("--fail-on error with the required value missing: exit %d", code)
	}
}
