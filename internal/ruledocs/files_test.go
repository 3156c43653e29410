package ruledocs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

const repoRoot = "../.."

// The committed documentation is exactly what the registry and the
// fixtures generate today.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	files, err := Generated(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(repoRoot, rel))
		if err != nil {
			t.Errorf("%v: run go generate ./internal/ruledocs", err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./internal/ruledocs", rel)
		}
	}
	stale, err := Stale(repoRoot, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range stale {
		t.Errorf("%s belongs to no rule: run go generate ./internal/ruledocs", rel)
	}
	for _, r := range rules.All() {
		if !strings.Contains(string(files["docs/rules/README.md"]), "]("+r.Name+".md)") {
			t.Errorf("index does not link %s", r.Name)
		}
	}
}

func TestCountFixtures(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"a.yaml":    "x: 1 # want \"one\" `t\"wo`\ny: 2\nz: 3 #want \"three\"\n",
		"b.yml":     "ok: true\n",
		"notes.txt": "# want \"no\"\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fc, err := countFixtures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fc != (fixtureCount{Files: 2, Wants: 3}) {
		t.Errorf("got %+v, want 2 files, 3 wants", fc)
	}
}

func TestMarkdownAndText(t *testing.T) {
	r := &rules.Rule{Name: "demo-rule", Summary: "demo summary", Severity: diag.Warning, Category: rules.Practice,
		Since: "0.1.0", Doc: rules.Doc{Why: "Because.", Bad: "a: ```\n", Good: "a: 1", Fix: "Fix it.", Sources: []string{"src"}},
		Options: []rules.Option{{Name: "limit", Doc: "The limit.", Default: 3}, {Name: "names", Doc: "Names.", Default: []string{"x"}}}}
	md := Markdown(r)
	for _, want := range []string{
		"# demo-rule\n\ndemo summary.\n",
		"| warning | practice | 0.1.0 |",
		"## Why\n\nBecause.\n",
		"## Bad\n\n````yaml\na: ```\n````\n", // a longer fence around an example holding a fence
		"## Good\n\n```yaml\na: 1\n```\n",
		"| `limit` | `3` | The limit. |",
		"| `names` | `[\"x\"]` | Names. |",
		"# webhooklint:ignore demo-rule -- <why this is fine here>",
		"## Sources\n\n- src\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	text := Text(r)
	if strings.Contains(text, "```yaml") || !strings.Contains(text, "Bad:\n    a: ```\n") || !strings.Contains(text, "limit (default 3): The limit.") {
		t.Errorf("text:\n%s", text)
	}
}
