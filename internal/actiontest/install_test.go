package actiontest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// devTools are the commands only this repository's scripts run; they build
// with -tags devtools only.
var devTools = []string{"hack/krustyfloor", "hack/release", "hack/runstat", "hack/workload", "hack/yamlfloor", "internal/openapi/gen", "internal/ruledocs/gendocs"}

// mainPackages lists the commands `go list ./...` sees at the root.
func mainPackages(t *testing.T, flags ...string) []string {
	t.Helper()
	args := append([]string{"list"}, flags...)
	cmd := exec.Command("go", append(args, "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var mains []string
	for _, l := range strings.Fields(string(out)) {
		mains = append(mains, strings.TrimPrefix(l, "github.com/webhooklint/webhooklint/"))
	}
	slices.Sort(mains)
	return mains
}

// pre-commit's golang hook runs `go install ./...` at the repository root
// (pre_commit/languages/golang.py): it must build the two commands users
// run, not the development tools.
func TestGoInstallBuildsOnlyTheCommands(t *testing.T) {
	if got, want := mainPackages(t), []string{"cmd/webhooklint", "cmd/webhookvet"}; !slices.Equal(got, want) {
		t.Errorf("go install ./... builds %q, want %q", got, want)
	}
	want := append([]string{"cmd/webhooklint", "cmd/webhookvet"}, devTools...)
	slices.Sort(want)
	if got := mainPackages(t, "-tags", "devtools"); !slices.Equal(got, want) {
		t.Errorf("with -tags devtools: %q, want %q (a new development command needs the tag, and devTools)", got, want)
	}
}

// toolRun is a go run or go build of a development tool.
var toolRun = regexp.MustCompile(`go (?:run|build)((?: +-\S+(?: +"?[^ ."-]\S*)?)*) +"?\./(hack/krustyfloor|hack/release|hack/runstat|hack/workload|hack/yamlfloor|internal/openapi/gen|gendocs)\b`)

// Every script, workflow, Dockerfile, go:generate line and document that
// runs a development tool passes the tag: without it the go command says
// the build constraints exclude all its files.
func TestDevToolsAreRunWithTheirTag(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") && n != ".github" && n != ".ci" || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range toolRun.FindAllStringSubmatch(string(b), -1) {
			checked++
			if !strings.Contains(m[1], "-tags devtools") {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s: %q runs a development tool without -tags devtools", rel, m[0])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Errorf("found %d runs of development tools, expected the scripts' (Dockerfile, action.yml, hack/*.sh…)", checked)
	}
}
