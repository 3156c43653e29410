package source_test

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/testkit"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/source"
)

// layoutProjects lists the projects of ../shared/corpus/layouts (its
// SOURCES.tsv), skipping the test when the corpus is absent.
func layoutProjects(t *testing.T) (dir string, projects []string) {
	dir = filepath.Join(corpusDir(t), "layouts")
	f, err := os.Open(filepath.Join(dir, "SOURCES.tsv"))
	if err != nil {
		t.Skipf("layouts corpus not available: %v", err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), "\t")
		if name == "" || name == "dir" || strings.HasPrefix(name, "#") {
			continue
		}
		projects = append(projects, name)
	}
	if len(projects) == 0 {
		t.Fatal("SOURCES.tsv lists no project")
	}
	return dir, projects
}

// finding is a diagnostic as the invariant compares it: by absolute file.
func finding(d diag.Diagnostic) string {
	abs, err := filepath.Abs(d.File)
	if err != nil {
		abs = d.File
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s] %s", abs, d.Line, d.Column, d.Severity, d.Message, d.Rule, d.Path)
}

func byFile(ds []diag.Diagnostic) map[string][]string {
	out := map[string][]string{}
	for _, d := range ds {
		abs, _ := filepath.Abs(d.File)
		out[abs] = append(out[abs], finding(d))
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// unitFailure is a finding that says a unit could not be loaded: it is
// reported whichever of the unit's files was asked about.
func unitFailure(d diag.Diagnostic) bool {
	return d.Severity == diag.Error && (d.Rule == rules.KustomizeBuildRule || d.Rule == rules.HelmRenderRule)
}

// On every layout project, a file's findings are the same whether the
// folder is linted, every file of it is named (pre-commit), or the file
// alone (an editor, a changed file); no chart file is reported as an
// unrendered template; and the folder run is kept as a golden file.
func TestLayouts(t *testing.T) {
	dir, projects := layoutProjects(t)
	for _, p := range projects {
		t.Run(p, func(t *testing.T) {
			root := filepath.Join(dir, p)
			folder := run(t, []string{root}, source.Options{})
			checkGolden(t, filepath.Join("..", "testdata", "layouts", p+".golden"), root, folder.Diagnostics)

			sources, err := manifest.Expand([]string{root}, "")
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, s := range sources {
				files = append(files, s.Name)
			}
			every := run(t, files, source.Options{})
			want, got := byFile(folder.Diagnostics), byFile(every.Diagnostics)
			for _, f := range slices.Sorted(keys(want, got)) {
				if !slices.Equal(want[f], got[f]) {
					t.Errorf("%s: folder run and every-file run differ:\nfolder:\n  %s\nevery file:\n  %s", f,
						strings.Join(want[f], "\n  "), strings.Join(got[f], "\n  "))
				}
			}
			// Each file with findings, and a sample of those without.
			withFindings, without := 0, 0
			for _, f := range files {
				abs, _ := filepath.Abs(f)
				if len(want[abs]) == 0 {
					without++
					if without%40 != 1 {
						continue
					}
				} else {
					withFindings++
				}
				one := run(t, []string{f}, source.Options{})
				mine := byFile(one.Diagnostics)
				if !slices.Equal(want[abs], mine[abs]) {
					t.Errorf("%s: folder run and one-file run differ:\nfolder:\n  %s\nalone:\n  %s", f,
						strings.Join(want[abs], "\n  "), strings.Join(mine[abs], "\n  "))
				}
				if namesBuild(f) {
					continue // a kustomization or chart file names its whole build
				}
				for _, d := range one.Diagnostics {
					if a, _ := filepath.Abs(d.File); a != abs && !unitFailure(d) {
						t.Errorf("linting %s alone reports a finding in another file: %s", f, finding(d))
					}
				}
			}
			for _, res := range [][]diag.Diagnostic{folder.Diagnostics, every.Diagnostics} {
				for _, d := range res {
					if d.Rule == rules.HelmTemplateRule || d.Rule == rules.YAMLSyntaxRule {
						t.Errorf("chart file linted as a manifest: %s", finding(d))
					}
				}
			}
		})
	}
}

// namesBuild reports whether naming file names a whole build: a
// kustomization file, or a file of a chart (values, templates, Chart.yaml).
func namesBuild(file string) bool {
	if slices.Contains([]string{"kustomization.yaml", "kustomization.yml", "Kustomization"}, filepath.Base(file)) {
		return true
	}
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil {
			return true
		}
		if parent := filepath.Dir(dir); parent == dir || dir == "." {
			return false
		}
	}
}

// builtBy is the folder of the build a finding of the folder run came
// from (its Origin), or "" for a loose file's.
var builtBy = regexp.MustCompile(`^(?:kustomize build|helm template) (\S+?)(?:,| \(| --|$)`)

// On every layout project, each root kustomization and chart folder named
// on its own (webhooklint config/default) reports every finding the folder
// run attributes to its build, wherever the finding is located: an entry
// folder reports what it installs, bases and templates included.
func TestLayoutEntries(t *testing.T) {
	dir, projects := layoutProjects(t)
	for _, p := range projects {
		t.Run(p, func(t *testing.T) {
			root := filepath.Join(dir, p)
			folder := run(t, []string{root}, source.Options{})
			byEntry := map[string][]string{}
			for _, d := range folder.Diagnostics {
				m := builtBy.FindStringSubmatch(d.Origin)
				if m == nil || len(d.Units) > 0 {
					continue // a loose file's, or one only some builds have
				}
				byEntry[m[1]] = append(byEntry[m[1]], finding(d))
			}
			if len(byEntry) == 0 {
				t.Fatal("no finding of the folder run names its build")
			}
			for _, entry := range slices.Sorted(maps.Keys(byEntry)) {
				got := map[string]bool{}
				for _, d := range run(t, []string{entry}, source.Options{}).Diagnostics {
					got[finding(d)] = true
				}
				missing := 0
				for _, f := range byEntry[entry] {
					if !got[f] {
						missing++
						t.Errorf("webhooklint %s misses a finding of its build: %s", entry, f)
					}
				}
				t.Logf("%s: %d findings of its build, %d missing", entry, len(byEntry[entry]), missing)
			}
		})
	}
}

func keys(ms ...map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// checkGolden compares findings, with paths relative to root, to a golden
// file (rewritten with -update).
func checkGolden(t *testing.T, goldenFile, root string, ds []diag.Diagnostic) {
	t.Helper()
	absRoot, _ := filepath.Abs(root)
	// Messages name folders outside the working folder by absolute path;
	// the golden file holds them relative to the project.
	roots := []string{absRoot + string(filepath.Separator)}
	if real, err := filepath.EvalSymlinks(absRoot); err == nil && real != absRoot {
		roots = append(roots, real+string(filepath.Separator))
	}
	var lines []string
	for _, d := range ds {
		abs, _ := filepath.Abs(d.File)
		rel, err := filepath.Rel(absRoot, abs)
		if err != nil {
			rel = d.File
		}
		msg := strings.ReplaceAll(d.Message, "\n", "\\n")
		if len(d.Units) > 0 {
			msg += " (only in " + strings.Join(d.Units, "; ") + ")"
		}
		for _, r := range roots {
			msg = strings.ReplaceAll(msg, r, "")
		}
		lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s [%s]\n", filepath.ToSlash(rel), d.Line, d.Column, d.Severity, msg, d.Rule))
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
	}
	testkit.Golden(t, goldenFile, []byte(b.String()))
}
