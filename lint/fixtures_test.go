package lint_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// Fixtures live in testdata/rules/<rule>/*.yaml. A trailing comment
// `# want @N "regexp" ...` on a line expects one diagnostic per regexp to
// start on that line, in column N; each regexp is matched against
// "message [rule]". Every diagnostic must be wanted. Only the directory's rule runs, plus the
// loader's input checks, which must stay silent unless wanted.
//
// An optional first line `# fixture: {...}` sets kubeVersion ("1.34"),
// rule options, now (RFC 3339), provider and the live cluster state for
// the fixture.

const fixturesDir = "../testdata/rules"

var (
	wantComment = regexp.MustCompile(`#\s*want\s+((?:(?:@\d+\s+)?(?:"(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `)\s*)+)$`)
	wantArg     = regexp.MustCompile(`(?:@(\d+)\s+)?("(?:[^"\\]|\\.)*"|` + "`[^`]*`)")
)

type fixtureHeader struct {
	KubeVersion string                    `json:"kubeVersion"`
	Options     map[string]map[string]any `json:"options"`
	Now         string                    `json:"now"`
	// Live is the cluster state live rules judge against.
	Live *rules.LiveInventory `json:"live"`
	// Provider is the platform ("gke", "aks", ...; default generic).
	Provider string `json:"provider"`
}

// alwaysOn are the loader's input checks that run with every fixture.
var alwaysOn = []string{rules.YAMLSyntaxRule, rules.SchemaRule, rules.InvalidSuppressionRule, rules.UnusedSuppressionRule}

func TestRuleFixtures(t *testing.T) {
	dirs, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		rule := d.Name()
		if _, ok := rules.Lookup(rule); !ok {
			t.Errorf("testdata/rules/%s: no such rule", rule)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(fixturesDir, rule, "*.yaml"))
		for _, f := range files {
			t.Run(rule+"/"+filepath.Base(f), func(t *testing.T) { runFixture(t, rule, f) })
		}
	}
}

// TestEveryRuleHasFixtures keeps rules honest: a rule that runs must show
// at least one finding and one clean case in its fixtures.
func TestEveryRuleHasFixtures(t *testing.T) {
	for _, r := range rules.All() {
		if r.Check == nil && r.CheckCRD == nil && r.CheckPolicy == nil {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(fixturesDir, r.Name, "*.yaml"))
		wants := 0
		for _, f := range files {
			b, _ := os.ReadFile(f)
			wants += strings.Count(string(b), "# want ")
		}
		if len(files) == 0 || wants == 0 {
			t.Errorf("rule %s has no fixtures with findings in testdata/rules/%s/", r.Name, r.Name)
		}
	}
}

func runFixture(t *testing.T, rule, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	settings := rules.DefaultSettings()
	settings.Now = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var live *rules.LiveInventory
	if first, _, _ := strings.Cut(string(data), "\n"); strings.HasPrefix(first, "# fixture:") {
		var h fixtureHeader
		if err := json.Unmarshal([]byte(strings.TrimPrefix(first, "# fixture:")), &h); err != nil {
			t.Fatalf("bad fixture header: %v", err)
		}
		if h.KubeVersion != "" {
			if settings.KubeVersion, err = rules.ParseKubeVersion(h.KubeVersion); err != nil {
				t.Fatal(err)
			}
		}
		settings.Options = h.Options
		live = h.Live
		if settings.Provider, err = rules.ParseProvider(h.Provider); err != nil {
			t.Fatal(err)
		}
		if h.Now != "" {
			if settings.Now, err = time.Parse(time.RFC3339, h.Now); err != nil {
				t.Fatal(err)
			}
		}
	}
	enabled := append([]string{rule}, alwaysOn...)
	res := lint.LintUnit(lint.Unit{Files: []*manifest.File{manifest.Parse(file, data)}}, lint.Options{
		Live:     live,
		Settings: settings,
		Enabled:  func(name string) bool { return slices.Contains(enabled, name) },
	})
	if len(res.Internal) > 0 {
		t.Fatalf("internal error: %v", res.Internal[0])
	}
	checkWants(t, file, data, res.Diagnostics)
}

type want struct {
	line int
	col  int
	re   *regexp.Regexp
	hit  bool
}

func checkWants(t *testing.T, file string, data []byte, ds []diag.Diagnostic) {
	t.Helper()
	var wants []*want
	for i, line := range strings.Split(string(data), "\n") {
		m := wantComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, a := range wantArg.FindAllStringSubmatch(m[1], -1) {
			q := a[2]
			col, err := strconv.Atoi(a[1])
			if err != nil {
				t.Errorf("%s:%d: a want names the column its finding starts in: # want @COL %s", file, i+1, a[2])
			}
			// Go string syntax, as in analysistest; a double-quoted regexp
			// with escapes Go strings lack (\[, \.) is taken literally.
			s, err := strconv.Unquote(q)
			if err != nil {
				s = q[1 : len(q)-1]
			}
			re, err := regexp.Compile(s)
			if err != nil {
				t.Fatalf("%s:%d: bad want regexp: %v", file, i+1, err)
			}
			wants = append(wants, &want{line: i + 1, col: col, re: re})
		}
	}
	for _, d := range ds {
		text := fmt.Sprintf("%s [%s]", d.Message, d.Rule)
		matched := false
		for _, w := range wants {
			if !w.hit && w.line == d.Line && w.col == d.Column && w.re.MatchString(text) {
				w.hit, matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d:%d: unexpected diagnostic: %s", file, d.Line, d.Column, text)
		}
	}
	for _, w := range wants {
		if !w.hit {
			t.Errorf("%s:%d:%d: no diagnostic matched %q", file, w.line, w.col, w.re)
		}
	}
}
