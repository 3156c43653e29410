package docfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/rules"
)

const repoRoot = "../../.."

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
