package rules_test

// Interim fixture check for the cross-object rules, which need the other
// objects of a fixture file (Services, workloads, Namespaces) and real line
// numbers: it runs the loader and the engine, like lint/fixtures_test.go
// will for every rule. Remove once that harness covers these directories.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/rules"
)

func TestCrossObjectFixtures(t *testing.T) {
	for _, rule := range []string{"never-sent-resources", "self-deadlock", "system-critical-scope"} {
		t.Run(rule, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("..", "testdata", "rules", rule, "*.yaml"))
			if len(files) == 0 {
				t.Fatal("no fixtures")
			}
			for _, file := range files {
				checkFixture(t, rule, file)
			}
		})
	}
}

var (
	wantRE   = regexp.MustCompile(`#\s*want\s+(.*)$`)
	headerRE = regexp.MustCompile(`^#\s*fixture:\s*(\{.*\})\s*$`)
)

func checkFixture(t *testing.T, rule, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s := rules.DefaultSettings()
	lines := strings.Split(string(data), "\n")
	if m := headerRE.FindStringSubmatch(lines[0]); m != nil {
		var h struct{ KubeVersion string }
		if err := json.Unmarshal([]byte(m[1]), &h); err != nil {
			t.Fatalf("%s: header: %v", file, err)
		}
		if h.KubeVersion != "" {
			maj, min, _ := strings.Cut(h.KubeVersion, ".")
			s.KubeVersion.Major, _ = strconv.Atoi(maj)
			s.KubeVersion.Minor, _ = strconv.Atoi(min)
		}
	}
	wants := map[int][]*regexp.Regexp{}
	for i, line := range lines {
		m := wantRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for rest := strings.TrimSpace(m[1]); rest != ""; {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				t.Fatalf("%s:%d: bad want: %v", file, i+1, err)
			}
			re, _ := strconv.Unquote(q)
			wants[i+1] = append(wants[i+1], regexp.MustCompile(re))
			rest = strings.TrimSpace(rest[len(q):])
		}
	}
	res, err := lint.Paths([]string{file}, nil, "", lint.Options{
		Settings: s, Enabled: func(name string) bool { return name == rule },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		text := d.Message + " [" + d.Rule + "]"
		matched := false
		for i, re := range wants[d.Line] {
			if re != nil && re.MatchString(text) {
				wants[d.Line][i], matched = nil, true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d: unexpected: %s", file, d.Line, text)
		}
	}
	for line, res := range wants {
		for _, re := range res {
			if re != nil {
				t.Errorf("%s:%d: no diagnostic matched %q", file, line, re)
			}
		}
	}
}
