package unrendered

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInFileKinds(t *testing.T) {
	cases := []struct {
		name, src string
		kind      Kind
		line, col int
	}{
		{"helm", "kind: X\nmetadata:\n  name: {{ .Release.Name }}-hook\n", HelmLike, 3, 9},
		{"helm-include", "{{- include \"x\" . }}\nkind: X\n", HelmLike, 1, 1},
		{"go-template", "metadata:\n  namespace: {{ .Namespace }}\n", Generic, 2, 14},
		{"sed", "caBundle: {{caBundle}}\n", Generic, 1, 11},
		{"unicode-column", "# é\nname: é{{ .X }}\n", Generic, 2, 8},
		{"open-action", "x: {{ if .Values.a\n  }}\n", HelmLike, 1, 4},
	}
	for _, c := range cases {
		got, ok := InFile("x.yaml", []byte(c.src))
		if !ok {
			t.Errorf("%s: not recognized", c.name)
			continue
		}
		if got.Kind != c.kind || got.Line != c.line || got.Column != c.col {
			t.Errorf("%s: got kind %d at %d:%d, want %d at %d:%d", c.name, got.Kind, got.Line, got.Column, c.kind, c.line, c.col)
		}
	}
	if _, ok := InFile("x.yaml", []byte("kind: X\ndata: {a: b}\n")); ok {
		t.Error("plain YAML recognized as a template")
	}
}

func TestInDocumentIgnoresMarkers(t *testing.T) {
	if _, ok := InDocument("x.yaml", []byte("caBundle: \"{{caBundle}}\"\n")); ok {
		t.Error("a {{name}} marker in a parsed document is a placeholder, not a template")
	}
	got, ok := InDocument("x.yaml", []byte("failurePolicy: \"___{{ .Values.fp }}___\"\n"))
	if !ok || got.Kind != HelmLike || got.HelmHint != ".Values" {
		t.Errorf("got %+v, %v", got, ok)
	}
}

func TestUnderChart(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "mychart")
	must(t, os.MkdirAll(filepath.Join(chart, "templates", "webhook"), 0o755))
	must(t, os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("name: mychart\n"), 0o644))
	f := filepath.Join(chart, "templates", "webhook", "w.yaml")
	must(t, os.WriteFile(f, []byte("name: {{ .X }}\n"), 0o644))
	got, ok := InFile(f, []byte("name: {{ .X }}\n"))
	if !ok || got.Kind != HelmChart || !strings.HasSuffix(got.Chart, "mychart") {
		t.Fatalf("got %+v", got)
	}
	if !strings.Contains(got.Message(), "webhooklint --helm ") {
		t.Errorf("message does not say how to lint the chart: %s", got.Message())
	}
	if _, ok := UnderChart(filepath.Join(dir, "other.yaml")); ok {
		t.Error("a file outside any chart is under a chart")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The shared corpus is outside the repository: every raw template in it is
// recognized, and Helm is claimed only for the files that use Helm.
func TestCorpusTemplates(t *testing.T) {
	dir := filepath.Join(corpusDir(t), "templates")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	notHelm := map[string]bool{}
	for _, p := range []string{"apache__apisix", "k8snetworkplumbingwg__sriov", "nmstate__", "open-cluster-management-io__ocm", "karmada-io__karmada"} {
		notHelm[p] = true
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := InFile(e.Name(), data)
		if !ok {
			t.Errorf("%s: not recognized as a template", e.Name())
			continue
		}
		generic := false
		for p := range notHelm {
			if strings.HasPrefix(e.Name(), p) {
				generic = true
			}
		}
		if generic != (got.Kind == Generic) {
			t.Errorf("%s: kind %d (%s)", e.Name(), got.Kind, got.Message())
		}
	}
}

// corpusDir is ../shared/corpus beside the repository root, or
// $WEBHOOKLINT_CORPUS (for worktrees that live elsewhere).
func corpusDir(t *testing.T) string {
	if d := os.Getenv("WEBHOOKLINT_CORPUS"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skip(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "corpus")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found")
		}
		dir = parent
	}
}
