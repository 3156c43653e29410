package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/rules"
)

// --explain prints exactly the committed rule page.
func TestExplainPrintsTheRulePage(t *testing.T) {
	all := rules.All()
	if len(all) == 0 {
		t.Fatal("no rules registered")
	}
	for _, r := range all {
		code, out, errOut := runCLI(t, "--explain", r.Name)
		if code != ExitOK || errOut != "" {
			t.Fatalf("--explain %s: exit %d, %s", r.Name, code, errOut)
		}
		page, err := os.ReadFile(filepath.Join("..", "docs", "rules", r.Name+".md"))
		if err != nil {
			t.Fatalf("%v (run go generate ./internal/ruledocs)", err)
		}
		if out != string(page) {
			t.Errorf("--explain %s differs from docs/rules/%s.md (run go generate ./internal/ruledocs)", r.Name, r.Name)
		}
	}
}
