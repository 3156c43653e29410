package analyzer

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/webhooklint/webhooklint/internal/testkit"
)

// markerLine matches a marker comment line as it appears in source.
var markerLine = regexp.MustCompile(`^\s*//\s*\+kubebuilder:webhook`)

// lintMarkerLines puts marker lines into a package file, one per comment
// group, and returns the marker front end's diagnostics as
// "line:col: message" strings (lines of the synthetic file).
func lintMarkerLines(t *testing.T, lines []string) []string {
	t.Helper()
	var src strings.Builder
	src.WriteString("package p\n")
	for _, l := range lines {
		src.WriteString("\n" + strings.TrimSpace(l) + "\n")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src.String(), parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	pass := &analysis.Pass{Fset: fset, Files: []*ast.File{f}, Report: func(d analysis.Diagnostic) {
		p := fset.Position(d.Pos)
		out = append(out, fmt.Sprintf("%d:%d: %s", p.Line, p.Column, d.Message))
	}}
	r := &reporter{pass: pass}
	generate(findMarkers(f, r), r)
	return out
}

// TestCorpusMarkers runs the marker front end over the real marker
// excerpts of the shared corpus (when present) and compares with a golden
// file: every marker parses, or is reported with controller-gen's reason.
func TestCorpusMarkers(t *testing.T) {
	// The corpus lives next to the checkout (../shared/corpus from the
	// repository root, whether that is the main checkout or a worktree).
	var files []string
	for _, dir := range []string{os.Getenv("WEBHOOKLINT_CORPUS"), "../../shared/corpus", "../../../shared/corpus"} {
		if dir != "" && len(files) == 0 {
			files, _ = filepath.Glob(filepath.Join(dir, "markers", "*.txt"))
		}
	}
	if len(files) == 0 {
		t.Skip("corpus not found; set WEBHOOKLINT_CORPUS")
	}
	slices.Sort(files)
	var got strings.Builder
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if markerLine.MatchString(l) {
				lines = append(lines, l)
			}
		}
		ds := lintMarkerLines(t, lines)
		name := filepath.Base(file)
		fmt.Fprintf(&got, "%s: %d markers\n", name, len(lines))
		for _, d := range ds {
			fmt.Fprintf(&got, "\t%s\n", d)
		}
		if strings.Contains(name, "controller-tools__pkg_webhook_testdata_invalid-") && len(ds) == 0 {
			t.Errorf("%s: controller-gen rejects these markers, but nothing was reported", name)
		}
	}
	testkit.Golden(t, filepath.Join("testdata", "corpus-markers.golden"), []byte(got.String()))
}

// FuzzMarkers feeds arbitrary marker arguments through controller-tools'
// parser, the conversion and the position mapping: bad input must give
// diagnostics, never a panic or a position outside the marker.
func FuzzMarkers(f *testing.F) {
	f.Add("path=/v,mutating=false,failurePolicy=fail,sideEffects=None,groups=\"\",resources=pods,verbs=create,versions=v1,name=v.io,admissionReviewVersions=v1")
	f.Add("url=\"https://h/p\",mutating=true,failurePolicy=x,groups={a,b},resources=r,verbs=*,versions=v1,name=n,admissionReviewVersions={v1},patch=`{\"timeoutSeconds\":99}`")
	f.Add("port=9443,cert-dir=/tmp")
	f.Fuzz(func(t *testing.T, args string) {
		if strings.ContainsAny(args, "\n\r") {
			return
		}
		for _, name := range []string{"webhook", "webhookconfiguration"} {
			lines := []string{"// +kubebuilder:" + name + ":" + args}
			src := "package p\n\n" + lines[0] + "\n"
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
			if err != nil {
				return
			}
			pass := &analysis.Pass{Fset: fset, Files: []*ast.File{file}, Report: func(d analysis.Diagnostic) {
				if d.Pos < file.FileStart || d.End > file.FileEnd || d.End < d.Pos {
					t.Fatalf("%q: diagnostic outside the file: %v", args, d)
				}
			}}
			r := &reporter{pass: pass}
			for _, mc := range generate(findMarkers(file, r), r) {
				for i := range mc.config.Webhooks {
					mc.locate(fmt.Sprintf("webhooks[%d].rules[0].operations[0]", i))
				}
				mc.locate("metadata.name")
			}
		}
	})
}
