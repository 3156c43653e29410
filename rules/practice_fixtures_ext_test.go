package rules_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
)

// TestPracticeFixturesPositioned runs this branch's fixtures through the
// real loader and engine and checks every `# want` line by line, with the
// loader's syntax and schema checks on (they must stay silent). It stands
// in for lint/fixtures_test.go until that harness lands.
func TestPracticeFixturesPositioned(t *testing.T) {
	for _, rule := range []string{
		"ca-bundle", "client-url-host", "dry-run-side-effects", "namespace-selector-no-effect",
		"object-selector-bypass", "review-versions-order", "selector-never-matches", "service-reference",
		"timeout-budget", "timeout-too-long",
	} {
		t.Run(rule, func(t *testing.T) {
			if _, ok := rules.Lookup(rule); !ok {
				t.Skip("rule not registered yet")
			}
			files, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", rule, "*.yaml"))
			if len(files) == 0 {
				t.Fatal("no fixtures")
			}
			for _, file := range files {
				checkPositionedFixture(t, rule, file)
			}
		})
	}
}

var (
	extWant = regexp.MustCompile(`#\s*want\s+(.*)$`)
	extHead = regexp.MustCompile(`^#\s*fixture:\s*\{`)
)

func checkPositionedFixture(t *testing.T, rule, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := rules.DefaultSettings()
	s.Now = time.Date(2026, time.June, 1, 12, 0, 0, 0, time.UTC)
	if extHead.Match(data) {
		// Options are checked by the package-internal fixture test; the
		// positioned run only needs them applied.
		first, _, _ := strings.Cut(string(data), "\n")
		opts, err := headerOptions(first)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		s.Options = opts
	}
	wants := map[int][]*regexp.Regexp{}
	for i, line := range strings.Split(string(data), "\n") {
		m := extWant.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := strings.TrimSpace(m[1])
		for rest != "" {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("%s:%d: bad want: %v", file, i+1, err)
			}
			re, _ := strconv.Unquote(q)
			wants[i+1] = append(wants[i+1], regexp.MustCompile(re))
			rest = strings.TrimSpace(rest[len(q):])
		}
	}
	f := manifest.Parse(file, data)
	res := lint.Files([]*manifest.File{f}, lint.Options{Settings: s, Jobs: 1, Enabled: func(name string) bool {
		return name == rule || name == manifest.RuleSyntax || name == manifest.RuleSchema
	}})
	for _, d := range res.Diagnostics {
		text := d.Message + " [" + d.Rule + "]"
		ws := wants[d.Line]
		matched := false
		for j, w := range ws {
			if w != nil && w.MatchString(text) {
				ws[j] = nil
				matched = true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d:%d: unexpected: %s", file, d.Line, d.Column, text)
		}
	}
	for line, ws := range wants {
		for _, w := range ws {
			if w != nil {
				t.Errorf("%s:%d: no diagnostic matched %q", file, line, w)
			}
		}
	}
}

func headerOptions(line string) (map[string]map[string]any, error) {
	_, js, ok := strings.Cut(line, "fixture:")
	if !ok {
		return nil, fmt.Errorf("no header")
	}
	var h struct {
		Options map[string]map[string]any `json:"options"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(js)), &h); err != nil {
		return nil, err
	}
	return h.Options, nil
}
