package analyzer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/linewidth"
)

// vetOutput is what `go vet -vettool=webhookvet -min-severity=info ./...`
// prints of the module in dir, the "# package" headers left out: one
// "file:line:col: message" line per finding, paths relative to dir.
func vetOutput(t *testing.T, dir string) string {
	t.Helper()
	a, err := New(Options{MinSeverity: diag.Info})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir, Env: append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	res, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, act := range res.Roots {
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			rel, err := filepath.Rel(dir, pos.Filename)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s", filepath.ToSlash(rel), pos.Line, pos.Column, d.Message))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// go vet's lines stay within the width the file mode keeps (issue 38),
// on the kubebuilder-style project hack/test-webhookvet.sh vets and on the
// front ends' test packages. go vet prints each finding on one line at
// its position (the marker or literal is the object; there is no header
// to name it), so a message names no more than in the file mode.
func TestVetTextWidth(t *testing.T) {
	if testing.Short() {
		t.Skip("loads k8s.io/api from source")
	}
	project, err := filepath.Abs(filepath.Join("testdata", "project"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, dir := range []string{project, testdataModule(t)} {
		total += linewidth.Check(t, filepath.Base(dir), vetOutput(t, dir))
	}
	// The project alone has 12 findings at warning (webhookvet.golden).
	if total < 40 {
		t.Errorf("go vet gave %d finding lines, want 40 or more", total)
	}
}
