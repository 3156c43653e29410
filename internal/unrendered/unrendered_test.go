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

// An action is a template only where YAML expects a node; in strings and
// comments it is text.
func TestDocumentsFindBareActions(t *testing.T) {
	cases := []struct {
		name, text string
		line, col  int // 0: no bare action
	}{
		{"line start", "kind: A\n{{- if .Values.x }}\nb: 1\n", 2, 1},
		{"value", "metadata:\n  name: {{ .Release.Name }}\n", 2, 9},
		{"list item", "args:\n- {{ .Values.a }}\n", 2, 3},
		{"flow list", "args: [a, {{ .Values.b }}]\n", 1, 11},
		{"after a quoted key", "\"k\": {{ x }}\n", 1, 6},
		{"double-quoted value", "data:\n  t: \"{{ .Values.x }}\"\n", 0, 0},
		{"single-quoted value", "data:\n  t: '{{ x }} it''s'\n", 0, 0},
		{"quoted over lines", "data:\n  t: \"a\n    {{ x }}\"\n", 0, 0},
		{"plain scalar", "metadata:\n  name: web-{{ .Values.x }}\n", 0, 0},
		{"comment", "# render with {{ .Values.x }}\nkind: A\n", 0, 0},
		{"trailing comment", "kind: A # {{ x }}\n", 0, 0},
		{"block scalar", "data:\n  t: |\n    {{ .Values.x }}\n    more\nkind: A\n", 0, 0},
		{"after a block scalar", "data:\n  t: |\n    text\n{{ end }}\n", 4, 1},
		{"folded with indicator", "a: >-\n  {{ x }}\n", 0, 0},
		{"envsubst line", "spec:\n  a: 1\n  ${EXTRA_CONFIG}\n", 3, 3},
		{"envsubst line with default and comment", "${EXTRA:=}  # filled by clusterctl\n", 1, 1},
		{"envsubst value", "spec:\n  a: ${A}\n", 0, 0},
		{"envsubst list item", "args:\n- ${A}\n", 0, 0},
		{"envsubst in a block scalar", "t: |\n  ${A}\n", 0, 0},
		{"envsubst and more", "${A} b\n", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := Documents([]byte(c.text))
			if len(ds) != 1 {
				t.Fatalf("%d documents", len(ds))
			}
			if d := ds[0]; d.Line != c.line || d.Column != c.col {
				t.Errorf("got %d:%d %q, want %d:%d", d.Line, d.Column, d.Action, c.line, c.col)
			}
		})
	}
}

func TestDocumentsAreCutAtSeparators(t *testing.T) {
	ds := Documents([]byte("a: 1\n---\nb: {{ x }}\n--- # c\nc: 3\n"))
	if len(ds) != 3 || ds[0].LastLine != 1 || ds[1].FirstLine != 3 || ds[1].Line != 3 || ds[2].FirstLine != 5 || ds[2].Action != "" {
		t.Errorf("got %+v", ds)
	}
}
